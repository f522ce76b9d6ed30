//! An in-memory ring buffer of the last K frames.

use super::{ColumnRef, DataLogger, Frame};
use crate::error::Result;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

/// An owned copy of a frame (every component as `f64`).
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedFrame {
    /// Simulation time (s).
    pub time: f64,
    /// Component values by name.
    pub columns: BTreeMap<String, Vec<f64>>,
    /// Monitor and tracked values by name.
    pub scalars: BTreeMap<String, f64>,
}

#[derive(Debug, Default)]
struct Ring {
    capacity: Option<usize>,
    frames: VecDeque<OwnedFrame>,
    settings: Map<String, Value>,
}

/// Keeps the last `capacity` frames (all of them with `None`).
#[derive(Debug, Clone)]
pub struct RingBufferLogger(Rc<RefCell<Ring>>);

/// A read handle on a [`RingBufferLogger`] that stays usable after the
/// logger is moved into an engine.
#[derive(Debug, Clone)]
pub struct RingHandle(Rc<RefCell<Ring>>);

impl RingBufferLogger {
    /// A ring of at most `capacity` frames (`None`: unbounded).
    pub fn new(capacity: Option<usize>) -> Self {
        RingBufferLogger(Rc::new(RefCell::new(Ring {
            capacity,
            ..Ring::default()
        })))
    }

    /// A handle to read the frames later.
    pub fn handle(&self) -> RingHandle {
        RingHandle(self.0.clone())
    }
}

impl RingHandle {
    /// The frames held, oldest first.
    pub fn frames(&self) -> Vec<OwnedFrame> {
        self.0.borrow().frames.iter().cloned().collect()
    }
    /// Frames held.
    pub fn len(&self) -> usize {
        self.0.borrow().frames.len()
    }
    /// Whether no frame is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The settings of the current run.
    pub fn settings(&self) -> Map<String, Value> {
        self.0.borrow().settings.clone()
    }
}

impl DataLogger for RingBufferLogger {
    fn begin(&mut self, settings: &Map<String, Value>, _first: &Frame<'_>) -> Result<()> {
        let mut r = self.0.borrow_mut();
        r.frames.clear();
        r.settings = settings.clone();
        Ok(())
    }

    fn record(&mut self, frame: &Frame<'_>) -> Result<()> {
        let owned = OwnedFrame {
            time: frame.time,
            columns: frame
                .columns
                .iter()
                .map(|c| {
                    let v = match &c.data {
                        ColumnRef::F64(v) => v.to_vec(),
                        other => (0..other.len()).map(|i| other.get_f64(i)).collect(),
                    };
                    (c.name.to_owned(), v)
                })
                .collect(),
            scalars: frame.scalars.iter().cloned().collect(),
        };
        let mut r = self.0.borrow_mut();
        if r.capacity == Some(0) {
            return Ok(());
        }
        if r.capacity.is_some_and(|c| r.frames.len() >= c) {
            r.frames.pop_front();
        }
        r.frames.push_back(owned);
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}
