//! Reading CSV logs back: ours (flattened columns) and ssl_simulator's
//! (one column per label, each cell a Python/JSON list).

use crate::error::{EcsError, Result};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// One column of a CSV log: `rows` × `shape` values, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvColumn {
    /// Header name.
    pub name: String,
    /// Shape of one cell: `[]` for a number, `[N, 2]` for a cell holding
    /// `[[x, y], ...]`.
    pub shape: Vec<usize>,
    /// Every cell's values in row order, each cell flattened row-major.
    pub data: Vec<f64>,
}

impl CsvColumn {
    /// Values per cell (1 for a number).
    pub fn width(&self) -> usize {
        self.shape.iter().product()
    }
    /// The values of row `t`.
    pub fn row(&self, t: usize) -> &[f64] {
        let w = self.width();
        &self.data[t * w..(t + 1) * w]
    }
}

/// A CSV log read back: the `# SETTINGS` JSON (if the file has the line)
/// and the columns in header order.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvLog {
    /// The parsed `# SETTINGS: {json}` line.
    pub settings: Option<Value>,
    /// Columns in header order.
    pub columns: Vec<CsvColumn>,
    /// Data rows.
    pub rows: usize,
}

impl CsvLog {
    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&CsvColumn> {
        self.columns.iter().find(|c| c.name == name)
    }
    /// The `time` column (s).
    pub fn time(&self) -> Option<&[f64]> {
        self.column("time").map(|c| c.data.as_slice())
    }
}

/// Reads a CSV log written by [`super::CsvLogger`] or by ssl_simulator's
/// `DataLogger` (what its `load_sim` reads): an optional first line
/// `# SETTINGS: {json}`, a header row, then one row per logged step.
///
/// Cells are numbers (`nan`, `inf` accepted), booleans (`True`/`true` = 1)
/// or nested lists of them (`"[[1.0, 2.0], [3.0, 4.0]]"`, quoted as CSV
/// quotes fields with commas); a column's cells must all have the same
/// shape. Errors name the line and column.
pub fn read_csv_log(path: impl AsRef<Path>) -> Result<CsvLog> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|e| EcsError::io(path, e))?;
    let mut lines = BufReader::new(file).lines().enumerate();
    let mut next = || -> Result<Option<(usize, String)>> {
        match lines.next() {
            Some((i, Ok(l))) => Ok(Some((i + 1, l))),
            Some((_, Err(e))) => Err(EcsError::io(path, e)),
            None => Ok(None),
        }
    };
    let bad =
        |line: usize, msg: String| EcsError::Format(format!("{}:{line}: {msg}", path.display()));
    let Some((mut no, mut line)) = next()? else {
        return Err(bad(1, "empty file (no header row)".into()));
    };
    let mut settings = None;
    if let Some(json) = line.strip_prefix("# SETTINGS:") {
        let v = serde_json::from_str(json.trim())
            .map_err(|e| bad(no, format!("the SETTINGS line is not JSON: {e}")))?;
        settings = Some(v);
        (no, line) = next()?.ok_or_else(|| bad(no + 1, "no header row".into()))?;
    }
    let header = split_fields(&line).map_err(|m| bad(no, m))?;
    let mut columns: Vec<CsvColumn> = header
        .into_iter()
        .map(|name| CsvColumn {
            name,
            shape: Vec::new(),
            data: Vec::new(),
        })
        .collect();
    let mut rows = 0;
    while let Some((no, line)) = next()? {
        if line.trim().is_empty() {
            continue;
        }
        let fields = split_fields(&line).map_err(|m| bad(no, m))?;
        if fields.len() != columns.len() {
            return Err(bad(
                no,
                format!("{} fields, the header has {}", fields.len(), columns.len()),
            ));
        }
        for (col, cell) in columns.iter_mut().zip(&fields) {
            let mut shape = Vec::new();
            let before = col.data.len();
            parse_cell(cell.trim(), &mut col.data, &mut shape)
                .map_err(|m| bad(no, format!("column `{}`: {m}", col.name)))?;
            if rows == 0 {
                col.shape = shape;
            } else if shape != col.shape {
                col.data.truncate(before);
                return Err(bad(
                    no,
                    format!(
                        "column `{}`: cell of shape {shape:?}, earlier rows {:?}",
                        col.name, col.shape
                    ),
                ));
            }
        }
        rows += 1;
    }
    Ok(CsvLog {
        settings,
        columns,
        rows,
    })
}

/// Splits one CSV record (RFC 4180 quoting: `"a,b"`, `""` for a quote).
fn split_fields(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.trim_end_matches('\r').chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    if quoted {
        return Err("unterminated quote (a record split over lines is not supported)".into());
    }
    out.push(cur);
    Ok(out)
}

/// Parses a number, boolean or nested list into `out`, its shape into
/// `shape` (empty for a scalar).
fn parse_cell(
    cell: &str,
    out: &mut Vec<f64>,
    shape: &mut Vec<usize>,
) -> std::result::Result<(), String> {
    if !cell.starts_with('[') {
        out.push(scalar(cell)?);
        return Ok(());
    }
    let mut p = ListParser {
        s: cell.as_bytes(),
        i: 0,
        out,
        shape: Vec::new(),
        leaf: None,
    };
    p.list(0)?;
    p.skip_ws();
    if p.i != p.s.len() {
        return Err(format!("trailing text after the list in {cell:?}"));
    }
    *shape = p.shape.into_iter().map(|l| l.unwrap_or(0)).collect();
    Ok(())
}

fn scalar(s: &str) -> std::result::Result<f64, String> {
    match s {
        "True" | "true" => Ok(1.0),
        "False" | "false" => Ok(0.0),
        _ => s.parse::<f64>().map_err(|_| format!("not a number: {s:?}")),
    }
}

struct ListParser<'a, 'o> {
    s: &'a [u8],
    i: usize,
    out: &'o mut Vec<f64>,
    /// Length at each depth, fixed by the first list closed at that depth.
    shape: Vec<Option<usize>>,
    /// The depth at which numbers sit (the same everywhere in a cell).
    leaf: Option<usize>,
}

impl ListParser<'_, '_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn list(&mut self, depth: usize) -> std::result::Result<(), String> {
        if depth > 32 {
            return Err("lists nested deeper than 32".into());
        }
        if self.leaf == Some(depth) {
            return Err("ragged list: a list where a number was".into());
        }
        if self.shape.len() <= depth {
            self.shape.resize(depth + 1, None);
        }
        self.i += 1; // '['
        let mut len = 0;
        loop {
            self.skip_ws();
            match self.s.get(self.i) {
                None => return Err("unterminated list".into()),
                Some(b']') if len == 0 => {
                    self.i += 1;
                    break;
                }
                Some(b'[') => self.list(depth + 1)?,
                Some(_) => {
                    if self.shape.len() > depth + 1 || self.leaf.is_some_and(|l| l != depth + 1) {
                        return Err("ragged list: a number where a list was".into());
                    }
                    self.leaf = Some(depth + 1);
                    let start = self.i;
                    while self
                        .s
                        .get(self.i)
                        .is_some_and(|c| !matches!(c, b',' | b']'))
                    {
                        self.i += 1;
                    }
                    let tok =
                        std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
                    self.out.push(scalar(tok.trim())?);
                }
            }
            len += 1;
            self.skip_ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                _ => return Err("expected `,` or `]` in a list".into()),
            }
        }
        match self.shape[depth] {
            None => self.shape[depth] = Some(len),
            Some(l) if l == len => {}
            Some(_) => return Err("ragged list: rows of different lengths".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(s: &str) -> std::result::Result<(Vec<f64>, Vec<usize>), String> {
        let (mut out, mut shape) = (Vec::new(), Vec::new());
        parse_cell(s, &mut out, &mut shape).map(|()| (out, shape))
    }

    #[test]
    fn cells() {
        assert_eq!(cell("1.5").unwrap(), (vec![1.5], vec![]));
        assert_eq!(cell("True").unwrap(), (vec![1.0], vec![]));
        assert!(cell("nan").unwrap().0[0].is_nan());
        assert_eq!(
            cell("[[1.0, 2.0], [3.0, -4e-3]]").unwrap(),
            (vec![1.0, 2.0, 3.0, -4e-3], vec![2, 2])
        );
        assert_eq!(cell("[ ]").unwrap(), (vec![], vec![0]));
        assert_eq!(cell("[True, false]").unwrap(), (vec![1.0, 0.0], vec![2]));
        for bad in [
            "[[1, 2], [3]]",
            "[1, [2]]",
            "[[1], 2]",
            "[1, 2",
            "[1 2]",
            "[1] x",
            "abc",
            "[",
            "[[]",
        ] {
            assert!(cell(bad).is_err(), "{bad}");
        }
        assert!(cell(&"[".repeat(100)).is_err());
    }

    #[test]
    fn fields() {
        assert_eq!(
            split_fields("a,\"[1, 2]\",c\r").unwrap(),
            ["a", "[1, 2]", "c"]
        );
        assert_eq!(split_fields("\"x\"\"y\",").unwrap(), ["x\"y", ""]);
        assert!(split_fields("\"open").is_err());
    }
}
