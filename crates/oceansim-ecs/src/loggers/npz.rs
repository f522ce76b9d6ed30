//! The NPZ log format: streamed to per-array part files, assembled into a
//! zip of `.npy` files when the run finishes.

use super::{ColumnRef, DataLogger, Frame};
use crate::error::{EcsError, Result};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

struct Part {
    name: String,
    descr: &'static str,
    per_row_shape: Vec<usize>,
    file: BufWriter<File>,
    path: PathBuf,
}

/// Streams frames into a NumPy `.npz` (see the module docs).
pub struct NpzLogger {
    path: PathBuf,
    parts_dir: Option<PathBuf>,
    parts: Vec<Part>,
    rows: usize,
}

impl std::fmt::Debug for NpzLogger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NpzLogger")
            .field("path", &self.path)
            .field("rows", &self.rows)
            .finish()
    }
}

impl NpzLogger {
    /// A logger writing `path` when the run finishes.
    pub fn new(path: impl AsRef<Path>) -> Self {
        NpzLogger {
            path: path.as_ref().to_owned(),
            parts_dir: None,
            parts: Vec::new(),
            rows: 0,
        }
    }

    fn io(&self, e: std::io::Error) -> EcsError {
        EcsError::io(&self.path, e)
    }

    fn add_part(
        &mut self,
        name: &str,
        descr: &'static str,
        per_row_shape: Vec<usize>,
    ) -> Result<()> {
        let dir = self.parts_dir.clone().unwrap_or_default();
        let path = dir.join(format!("{}.part", self.parts.len()));
        let file = BufWriter::new(File::create(&path).map_err(|e| self.io(e))?);
        self.parts.push(Part {
            name: name.to_owned(),
            descr,
            per_row_shape,
            file,
            path,
        });
        Ok(())
    }
}

/// The `.npy` v1.0 header for an array of `shape` and dtype `descr`.
fn npy_header(descr: &str, shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // magic(6) + version(2) + len(2) + dict + '\n' is a multiple of 64.
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(dict.len()).unwrap_or(u16::MAX).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

impl DataLogger for NpzLogger {
    fn begin(&mut self, _settings: &Map<String, Value>, first: &Frame<'_>) -> Result<()> {
        if first.columns.iter().any(|c| c.name == "time")
            || first.scalars.iter().any(|(n, _)| n == "time")
        {
            return Err(EcsError::Format(
                "`time` is reserved in NPZ logs; rename the component".into(),
            ));
        }
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| self.io(e))?;
        }
        let file_name = self
            .path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or("log");
        let dir = self
            .path
            .with_file_name(format!(".{file_name}.parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| self.io(e))?;
        self.parts_dir = Some(dir);
        self.parts.clear();
        self.rows = 0;
        self.add_part("time", "<f8", vec![])?;
        for c in &first.columns {
            let descr = match c.data {
                ColumnRef::F64(_) => "<f8",
                ColumnRef::I64(_) => "<i8",
                ColumnRef::Bool(_) => "|b1",
            };
            let mut shape = vec![first.n];
            shape.extend_from_slice(c.dim);
            self.add_part(c.name, descr, shape)?;
        }
        for (name, _) in first.scalars {
            self.add_part(name, "<f8", vec![])?;
        }
        Ok(())
    }

    fn record(&mut self, frame: &Frame<'_>) -> Result<()> {
        let path = self.path.clone();
        let io = |e| EcsError::io(&path, e);
        let expected = 1 + frame.columns.len() + frame.scalars.len();
        if self.parts.len() != expected {
            return Err(EcsError::Format(format!(
                "frame has {expected} arrays, the log was begun with {}",
                self.parts.len()
            )));
        }
        let mut parts = self.parts.iter_mut();
        if let Some(p) = parts.next() {
            p.file.write_all(&frame.time.to_le_bytes()).map_err(io)?;
        }
        for (c, p) in frame.columns.iter().zip(&mut parts) {
            match &c.data {
                ColumnRef::F64(v) => {
                    for x in v.iter() {
                        p.file.write_all(&x.to_le_bytes()).map_err(io)?;
                    }
                }
                ColumnRef::I64(v) => {
                    for x in v.iter() {
                        p.file.write_all(&x.to_le_bytes()).map_err(io)?;
                    }
                }
                ColumnRef::Bool(v) => {
                    for x in v.iter() {
                        p.file.write_all(&[u8::from(*x)]).map_err(io)?;
                    }
                }
            }
        }
        for ((_, x), p) in frame.scalars.iter().zip(parts) {
            p.file.write_all(&x.to_le_bytes()).map_err(io)?;
        }
        self.rows += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        let Some(dir) = self.parts_dir.take() else {
            return Ok(());
        };
        let path = self.path.clone();
        let io = |e| EcsError::io(&path, e);
        let file = File::create(&self.path).map_err(io)?;
        let mut zip = zip::ZipWriter::new(BufWriter::new(file));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(true);
        for mut p in self.parts.drain(..) {
            p.file.flush().map_err(io)?;
            drop(p.file);
            let mut shape = vec![self.rows];
            shape.extend_from_slice(&p.per_row_shape);
            zip.start_file(format!("{}.npy", p.name), options)
                .map_err(|e| EcsError::Format(format!("zip: {e}")))?;
            zip.write_all(&npy_header(p.descr, &shape)).map_err(io)?;
            let mut src = BufReader::new(File::open(&p.path).map_err(io)?);
            std::io::copy(&mut src, &mut zip).map_err(io)?;
        }
        zip.finish()
            .map_err(|e| EcsError::Format(format!("zip: {e}")))?
            .flush()
            .map_err(io)?;
        std::fs::remove_dir_all(&dir).map_err(io)?;
        Ok(())
    }
}

impl Drop for NpzLogger {
    fn drop(&mut self) {
        // A run that never finished leaves no part files behind.
        if let Some(dir) = self.parts_dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Values of an array read back from an `.npz`.
#[derive(Debug, Clone, PartialEq)]
pub enum NpyData {
    /// `<f8`.
    F64(Vec<f64>),
    /// `<i8`.
    I64(Vec<i64>),
    /// `|b1`.
    Bool(Vec<bool>),
}

/// An array read back from an `.npz`.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// Shape.
    pub shape: Vec<usize>,
    /// Values, row-major.
    pub data: NpyData,
}

fn parse_header(bytes: &[u8]) -> Result<(String, Vec<usize>, usize)> {
    let bad = |m: &str| EcsError::Format(format!("npy header: {m}"));
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("missing magic"));
    }
    let (len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Err(bad("unsupported version")),
    };
    let dict = std::str::from_utf8(
        bytes
            .get(start..start + len)
            .ok_or_else(|| bad("truncated"))?,
    )
    .map_err(|_| bad("not UTF-8"))?;
    let field = |key: &str| -> Result<&str> {
        let at = dict.find(key).ok_or_else(|| bad(key))? + key.len();
        Ok(dict[at..].trim_start_matches([':', ' ']))
    };
    let descr = field("'descr'")?;
    let descr = descr.trim_start_matches('\'');
    let descr = descr[..descr.find('\'').ok_or_else(|| bad("descr"))?].to_owned();
    if field("'fortran_order'")?.starts_with("True") {
        return Err(bad("fortran order is not supported"));
    }
    let shape = field("'shape'")?;
    let shape = &shape[1..shape.find(')').ok_or_else(|| bad("shape"))?];
    let shape = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| bad("shape")))
        .collect::<Result<Vec<_>>>()?;
    Ok((descr, shape, start + len))
}

/// Reads every array of an `.npz` written by [`NpzLogger`] (or NumPy's
/// `savez`, uncompressed, little-endian `f8`/`i8`/`b1`).
pub fn read_npz(path: impl AsRef<Path>) -> Result<BTreeMap<String, NpyArray>> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| EcsError::io(path, e))?;
    let mut archive = zip::ZipArchive::new(BufReader::new(file))
        .map_err(|e| EcsError::Format(format!("zip: {e}")))?;
    let mut out = BTreeMap::new();
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| EcsError::Format(format!("zip: {e}")))?;
        let name = entry
            .name()
            .map_err(|e| EcsError::Format(format!("zip entry name: {e}")))?
            .trim_end_matches(".npy")
            .to_owned();
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| EcsError::io(path, e))?;
        let (descr, shape, offset) = parse_header(&bytes)?;
        let body = &bytes[offset..];
        let count: usize = shape.iter().product();
        let data = match descr.as_str() {
            "<f8" => NpyData::F64(
                body.chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect(),
            ),
            "<i8" => NpyData::I64(
                body.chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect(),
            ),
            "|b1" => NpyData::Bool(body.iter().map(|b| *b != 0).collect()),
            other => return Err(EcsError::Format(format!("unsupported dtype {other}"))),
        };
        let len = match &data {
            NpyData::F64(v) => v.len(),
            NpyData::I64(v) => v.len(),
            NpyData::Bool(v) => v.len(),
        };
        if len != count {
            return Err(EcsError::Format(format!(
                "{name}: {len} values for shape {shape:?}"
            )));
        }
        out.insert(name, NpyArray { shape, data });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_64_byte_aligned_and_parse_back() {
        for shape in [vec![5], vec![3, 2], vec![10, 4, 3, 3]] {
            let h = npy_header("<f8", &shape);
            assert_eq!(h.len() % 64, 0);
            assert_eq!(*h.last().unwrap(), b'\n');
            let (descr, back, off) = parse_header(&h).unwrap();
            assert_eq!(descr, "<f8");
            assert_eq!(back, shape);
            assert_eq!(off, h.len());
        }
        assert!(std::str::from_utf8(&npy_header("<f8", &[5])[10..])
            .unwrap()
            .contains("(5,)"));
    }
}
