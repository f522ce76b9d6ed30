//! Paparazzi flight-log utilities: load a delimited log, find times, and
//! convert headings.

use crate::error::{MathError, Result};
use std::path::Path;

/// A numeric table read from a Paparazzi log (cells that are not numbers
/// become NaN).
#[derive(Debug, Clone, PartialEq)]
pub struct PprzLog {
    /// Column names from the header row.
    pub columns: Vec<String>,
    /// Rows of values, one per column.
    pub rows: Vec<Vec<f64>>,
    /// Each row's number among the file's data rows (0 = first after the
    /// header): pandas' index labels, which survive a time filter.
    pub index: Vec<usize>,
}

impl PprzLog {
    /// Index of a column.
    pub fn column_index(&self, name: &str) -> Result<usize> {
        self.columns.iter().position(|c| c == name).ok_or_else(|| {
            MathError::Log(format!(
                "no column `{name}` (columns: {})",
                self.columns.join(", ")
            ))
        })
    }

    /// The values of one column.
    pub fn column(&self, name: &str) -> Result<Vec<f64>> {
        let i = self.column_index(name)?;
        Ok(self.rows.iter().map(|r| r[i]).collect())
    }

    /// Parses log text: a header row, then rows separated by `sep`.
    pub fn parse(text: &str, sep: char) -> Result<Self> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header = lines
            .next()
            .ok_or_else(|| MathError::Log("the log is empty".into()))?;
        let columns: Vec<String> = header.split(sep).map(|c| c.trim().to_owned()).collect();
        let rows: Vec<Vec<f64>> = lines
            .map(|l| {
                let mut row: Vec<f64> = l
                    .split(sep)
                    .map(|c| c.trim().parse().unwrap_or(f64::NAN))
                    .collect();
                row.resize(columns.len(), f64::NAN);
                row
            })
            .collect();
        if rows.is_empty() {
            return Err(MathError::Log("the log has a header but no rows".into()));
        }
        let index = (0..rows.len()).collect();
        Ok(PprzLog {
            columns,
            rows,
            index,
        })
    }
}

/// Loads a Paparazzi log and keeps the rows with t0 ≤ time ≤ tf (no upper
/// bound when `tf` is `None`). Errors for an empty table, a missing time
/// column, or a time window with no rows.
pub fn load_pprz_data(
    path: impl AsRef<Path>,
    t0: f64,
    tf: Option<f64>,
    sep: char,
    time_label: &str,
) -> Result<PprzLog> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| MathError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let mut log = PprzLog::parse(&text, sep)?;
    let ti = log.column_index(time_label)?;
    let (first, last) = (log.rows[0][ti], log.rows[log.rows.len() - 1][ti]);
    let keep = |r: &Vec<f64>| r[ti] >= t0 && tf.is_none_or(|tf| r[ti] <= tf);
    log.index = log
        .index
        .iter()
        .zip(&log.rows)
        .filter(|(_, r)| keep(r))
        .map(|(i, _)| *i)
        .collect();
    log.rows.retain(keep);
    if log.rows.is_empty() {
        return Err(MathError::Log(format!(
            "no rows with {time_label} in [{t0}, {}] (the log spans [{first}, {last}])",
            tf.map_or("end".into(), |t| t.to_string())
        )));
    }
    Ok(log)
}

/// The index label (row number in the file, see [`PprzLog::index`]) of
/// the first row whose time is ≥ t, as ssl_simulator's `get_pprz_idx`
/// returns it; equal to the position in `rows` unless the log was loaded
/// from a start time.
pub fn get_pprz_idx(log: &PprzLog, t: f64, time_label: &str) -> Result<usize> {
    Ok(log.index[get_pprz_pos(log, t, time_label)?])
}

/// The position in `log.rows` of the first row whose time is ≥ t.
pub fn get_pprz_pos(log: &PprzLog, t: f64, time_label: &str) -> Result<usize> {
    if log.rows.is_empty() {
        return Err(MathError::Log("the log is empty".into()));
    }
    let ti = log.column_index(time_label)?;
    log.rows
        .iter()
        .position(|r| r[ti] >= t)
        .ok_or_else(|| MathError::Log(format!("t = {t} is after the last {time_label} of the log")))
}

/// Mathematical angle (0 = east, CCW) → Paparazzi heading (0 = north,
/// clockwise): π/2 − θ, not wrapped.
pub fn pprz_angle(theta: f64) -> f64 {
    std::f64::consts::FRAC_PI_2 - theta
}
