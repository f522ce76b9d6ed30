//! The CSV log format.

use super::{flat_column_names, ColumnRef, DataLogger, Frame};
use crate::error::{EcsError, Result};
use serde_json::{Map, Value};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Streams frames to a CSV file: `# SETTINGS: {json}`, a header row, then
/// one row per logged step (see the module docs for column names).
#[derive(Debug)]
pub struct CsvLogger {
    path: PathBuf,
    out: Option<BufWriter<File>>,
}

impl CsvLogger {
    /// A logger writing to `path` (created or truncated when a run begins).
    pub fn new(path: impl AsRef<Path>) -> Self {
        CsvLogger {
            path: path.as_ref().to_owned(),
            out: None,
        }
    }

    /// The output path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, e: std::io::Error) -> EcsError {
        EcsError::io(&self.path, e)
    }
}

impl DataLogger for CsvLogger {
    fn begin(&mut self, settings: &Map<String, Value>, first: &Frame<'_>) -> Result<()> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| self.io(e))?;
        }
        let file = File::create(&self.path).map_err(|e| self.io(e))?;
        let mut w = BufWriter::new(file);
        let settings = Value::Object(settings.clone()).to_string();
        let mut header = vec!["time".to_owned()];
        for c in &first.columns {
            header.extend(flat_column_names(c.name, first.n, c.dim));
        }
        header.extend(first.scalars.iter().map(|(n, _)| n.clone()));
        writeln!(w, "# SETTINGS: {settings}").map_err(|e| self.io(e))?;
        writeln!(w, "{}", header.join(",")).map_err(|e| self.io(e))?;
        self.out = Some(w);
        Ok(())
    }

    fn record(&mut self, frame: &Frame<'_>) -> Result<()> {
        let path = self.path.clone();
        let Some(w) = self.out.as_mut() else {
            return Err(EcsError::Format("CsvLogger::record before begin".into()));
        };
        let io = |e| EcsError::io(&path, e);
        write!(w, "{}", frame.time).map_err(io)?;
        for c in &frame.columns {
            match &c.data {
                ColumnRef::F64(v) => {
                    for x in v.iter() {
                        write!(w, ",{x}").map_err(io)?;
                    }
                }
                ColumnRef::I64(v) => {
                    for x in v.iter() {
                        write!(w, ",{x}").map_err(io)?;
                    }
                }
                ColumnRef::Bool(v) => {
                    for x in v.iter() {
                        write!(w, ",{}", u8::from(*x)).map_err(io)?;
                    }
                }
            }
        }
        for (_, x) in frame.scalars {
            write!(w, ",{x}").map_err(io)?;
        }
        writeln!(w).map_err(io)
    }

    fn finish(&mut self) -> Result<()> {
        if let Some(mut w) = self.out.take() {
            w.flush().map_err(|e| self.io(e))?;
        }
        Ok(())
    }
}
