//! Data loggers: the canonical log formats.
//!
//! * [`CsvLogger`]: first line `# SETTINGS: {json}` (the world's params and
//!   the engine's settings), then a header row and one row per logged step.
//!   Columns: `time`, then every component flattened per entity, then every
//!   monitor and tracked scalar by name. Flattened names are
//!   `{component}_{entity}` for a scalar per entity, `{component}_{entity}_{axis}`
//!   with axis `x`, `y`, `z`, `w` for vectors of up to 4 values (e.g. `p_0_x`),
//!   and `{component}_{entity}_{i}[_{j}...]` otherwise (e.g. `R_3_0_2`).
//!   [`read_csv_log`] reads it back (and ssl_simulator's CSV logs, whose
//!   cells hold whole arrays).
//! * [`NpzLogger`]: a NumPy `.npz` with one array per component of shape
//!   (T, N, *dim), plus `time` (T,) and one (T,) array per scalar; readable
//!   by `numpy.load`. Rows stream to disk as they are logged and are
//!   assembled into the archive when the run finishes, so the whole run is
//!   never held in memory.
//! * [`RingBufferLogger`]: the last K frames in memory.

mod csv;
mod csv_read;
mod npz;
mod ring;

pub use csv::CsvLogger;
pub use csv_read::{read_csv_log, CsvColumn, CsvLog};
pub use npz::{read_npz, NpyArray, NpyData, NpzLogger};
pub use ring::{OwnedFrame, RingBufferLogger, RingHandle};

use crate::error::Result;
use crate::world::{ColumnData, World};
use serde_json::{Map, Value};
use std::cell::Ref;

/// Borrowed data of one component in a frame.
#[derive(Debug)]
pub enum ColumnRef<'a> {
    /// `f64` values.
    F64(Ref<'a, [f64]>),
    /// `i64` values.
    I64(Ref<'a, [i64]>),
    /// `bool` values.
    Bool(Ref<'a, [bool]>),
}

impl ColumnRef<'_> {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            ColumnRef::F64(v) => v.len(),
            ColumnRef::I64(v) => v.len(),
            ColumnRef::Bool(v) => v.len(),
        }
    }
    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Value `i` as `f64` (bools as 0/1).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            ColumnRef::F64(v) => v[i],
            ColumnRef::I64(v) => v[i] as f64,
            ColumnRef::Bool(v) => f64::from(u8::from(v[i])),
        }
    }
}

/// One component in a frame.
#[derive(Debug)]
pub struct ColumnView<'a> {
    /// Component name.
    pub name: &'a str,
    /// Per-entity shape.
    pub dim: &'a [usize],
    /// Live view of the data (copy it to retain it).
    pub data: ColumnRef<'a>,
}

/// A snapshot handed to loggers and sinks: views of every component array
/// plus the scalar monitors and tracked values, at `time`.
#[derive(Debug)]
pub struct Frame<'a> {
    /// Simulation time (s).
    pub time: f64,
    /// Entities.
    pub n: usize,
    /// Components in registration order.
    pub columns: Vec<ColumnView<'a>>,
    /// Monitor values then tracked scalars, by name.
    pub scalars: &'a [(String, f64)],
    /// The world itself, for a sink that reads a resource (a fleet's
    /// acoustic table, say) as well as the components.
    pub world: &'a World,
}

impl<'a> Frame<'a> {
    /// Views every component of `world`.
    pub fn of(world: &'a World, time: f64, scalars: &'a [(String, f64)]) -> Self {
        let columns = world
            .components
            .iter()
            .map(|c| ColumnView {
                name: &c.name,
                dim: &c.dim,
                data: match &c.data {
                    ColumnData::F64(v) => ColumnRef::F64(Ref::map(v.borrow(), Vec::as_slice)),
                    ColumnData::I64(v) => ColumnRef::I64(Ref::map(v.borrow(), Vec::as_slice)),
                    ColumnData::Bool(v) => ColumnRef::Bool(Ref::map(v.borrow(), Vec::as_slice)),
                },
            })
            .collect();
        Frame {
            time,
            n: world.len(),
            columns,
            scalars,
            world,
        }
    }

    /// A component by name.
    pub fn get(&self, name: &str) -> Option<&ColumnView<'a>> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// A destination for logged frames.
pub trait DataLogger {
    /// Starts a run: `settings` are the static run metadata; `first` is the
    /// initial frame (also passed to [`DataLogger::record`] next).
    fn begin(&mut self, settings: &Map<String, Value>, first: &Frame<'_>) -> Result<()>;
    /// Records one frame.
    fn record(&mut self, frame: &Frame<'_>) -> Result<()>;
    /// Ends the run (flush, assemble files).
    fn finish(&mut self) -> Result<()>;
}

/// CSV column names of one component (see the module docs).
pub fn flat_column_names(name: &str, n: usize, dim: &[usize]) -> Vec<String> {
    let stride: usize = dim.iter().product();
    let mut out = Vec::with_capacity(n * stride);
    for i in 0..n {
        match dim {
            [] => out.push(format!("{name}_{i}")),
            [k] if *k <= 4 => out.extend(
                ["x", "y", "z", "w"][..*k]
                    .iter()
                    .map(|a| format!("{name}_{i}_{a}")),
            ),
            _ => {
                for flat in 0..stride {
                    let mut idx = Vec::with_capacity(dim.len());
                    let mut rem = flat;
                    for d in dim.iter().rev() {
                        idx.push(rem % d);
                        rem /= d;
                    }
                    idx.reverse();
                    let suffix: Vec<String> = idx.iter().map(usize::to_string).collect();
                    out.push(format!("{name}_{i}_{}", suffix.join("_")));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_names_are_documented_style() {
        assert_eq!(
            flat_column_names("p", 2, &[2]),
            ["p_0_x", "p_0_y", "p_1_x", "p_1_y"]
        );
        assert_eq!(flat_column_names("theta", 2, &[]), ["theta_0", "theta_1"]);
        assert_eq!(
            flat_column_names("q", 1, &[4]),
            ["q_0_x", "q_0_y", "q_0_z", "q_0_w"]
        );
        let r = flat_column_names("R", 1, &[3, 3]);
        assert_eq!(r[0], "R_0_0_0");
        assert_eq!(r[5], "R_0_1_2");
        assert_eq!(flat_column_names("v", 1, &[5])[4], "v_0_4");
    }
}
