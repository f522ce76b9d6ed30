//! Reading the cloud forms: structured records, per-point arrays, flat
//! compact arrays.

use super::CloudError;
use serde_json::{Map, Value};

/// Per-point values computed once for [`structured_cloud_to_rows`].
#[derive(Default)]
pub(super) struct Cache {
    local: Option<Vec<[f64; 3]>>,
    world: Option<Vec<[f64; 3]>>,
    ring_column: Option<Vec<[usize; 2]>>,
}

impl Cache {
    pub(super) fn column(&mut self, form: &Form<'_>, field: &str) -> Result<Vec<f64>, CloudError> {
        let axis = |name: &str| match name.chars().next() {
            Some('x') => 0,
            Some('y') => 1,
            _ => 2,
        };
        match field {
            "x" | "y" | "z" => {
                let local = match self.local.take() {
                    Some(local) => local,
                    None => form.local_xyz()?,
                };
                let k = axis(field);
                let column = local.iter().map(|p| p[k]).collect();
                self.local = Some(local);
                Ok(column)
            }
            "wx" | "wy" | "wz" | "x_world" | "y_world" | "z_world" => {
                let world = match self.world.take() {
                    Some(world) => world,
                    None => form.world_xyz()?,
                };
                let k = axis(field.trim_start_matches('w'));
                let column = world.iter().map(|p| p[k]).collect();
                self.world = Some(world);
                Ok(column)
            }
            "ring" | "column" => {
                let ring_column = match self.ring_column.take() {
                    Some(rc) => rc,
                    None => form.ring_column()?,
                };
                let k = usize::from(field == "column");
                let column = ring_column.iter().map(|rc| rc[k] as f64).collect();
                self.ring_column = Some(ring_column);
                Ok(column)
            }
            "intensity" => form.intensities(),
            "range" => form.ranges(),
            other => match form {
                Form::Structured { records, .. } => records
                    .iter()
                    .enumerate()
                    .map(|(index, record)| record_number(record, other, index))
                    .collect(),
                Form::Arrays { .. } => Err(CloudError::MissingField {
                    field: other.to_owned(),
                }),
            },
        }
    }
}

/// A cloud, classified.
pub(super) enum Form<'a> {
    /// `point_cloud` records (or a bare array of objects).
    Structured {
        root: Option<&'a Map<String, Value>>,
        records: &'a [Value],
    },
    /// Per-point arrays in an object, or a bare array of points.
    Arrays {
        root: Option<&'a Map<String, Value>>,
        bare: Option<&'a Value>,
    },
}

impl<'a> Form<'a> {
    pub(super) fn of(cloud: &'a Value) -> Result<Self, CloudError> {
        match cloud {
            Value::Object(map) => match map.get("point_cloud") {
                Some(Value::Array(records)) => Ok(Form::Structured {
                    root: Some(map),
                    records,
                }),
                Some(other) => Err(CloudError::InvalidCloud {
                    field: "point_cloud".to_owned(),
                    reason: format!("must be an array of point records, got {}", kind(other)),
                }),
                None => Ok(Form::Arrays {
                    root: Some(map),
                    bare: None,
                }),
            },
            Value::Array(items) if items.first().is_some_and(Value::is_object) => {
                Ok(Form::Structured {
                    root: None,
                    records: items,
                })
            }
            Value::Array(_) => Ok(Form::Arrays {
                root: None,
                bare: Some(cloud),
            }),
            other => Err(CloudError::InvalidCloud {
                field: "cloud".to_owned(),
                reason: format!("must be an object or an array, got {}", kind(other)),
            }),
        }
    }

    /// A top-level field (`points` is the bare array itself).
    pub(super) fn field(&self, key: &str) -> Option<&'a Value> {
        match self {
            Form::Arrays {
                bare: Some(bare), ..
            } if key == "points" => Some(bare),
            Form::Arrays { root, .. } | Form::Structured { root, .. } => {
                root.and_then(|map| map.get(key))
            }
        }
    }

    pub(super) fn local_xyz(&self) -> Result<Vec<[f64; 3]>, CloudError> {
        match self {
            Form::Structured { records, .. } => records
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    Ok([
                        record_number(r, "x", i)?,
                        record_number(r, "y", i)?,
                        record_number(r, "z", i)?,
                    ])
                })
                .collect(),
            Form::Arrays { .. } => self.xyz_field("points"),
        }
    }

    pub(super) fn world_xyz(&self) -> Result<Vec<[f64; 3]>, CloudError> {
        const KEYS: [[&str; 3]; 2] = [["wx", "wy", "wz"], ["x_world", "y_world", "z_world"]];
        match self {
            Form::Structured { records, .. } => {
                let has_world = |r: &Value| KEYS.iter().flatten().any(|k| r.get(k).is_some());
                if !records.is_empty() && !records.iter().any(has_world) {
                    return Err(CloudError::MissingField {
                        field: "points_world".to_owned(),
                    });
                }
                records
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let keys = if r.get("wx").is_some() {
                            KEYS[0]
                        } else {
                            KEYS[1]
                        };
                        Ok([
                            record_number(r, keys[0], i)?,
                            record_number(r, keys[1], i)?,
                            record_number(r, keys[2], i)?,
                        ])
                    })
                    .collect()
            }
            Form::Arrays { .. } => self.xyz_field("points_world"),
        }
    }

    /// An array-form coordinate field, nested or flat.
    pub(super) fn xyz_field(&self, key: &str) -> Result<Vec<[f64; 3]>, CloudError> {
        let value = self.field(key).ok_or_else(|| CloudError::MissingField {
            field: key.to_owned(),
        })?;
        let items = array(value, key)?;
        if items.first().is_some_and(Value::is_number) {
            if items.len() % 3 != 0 {
                return Err(CloudError::InvalidCloud {
                    field: key.to_owned(),
                    reason: format!(
                        "is a flat array of {} numbers, not a multiple of 3",
                        items.len()
                    ),
                });
            }
            return items
                .chunks_exact(3)
                .enumerate()
                .map(|(index, chunk)| {
                    let mut p = [0.0; 3];
                    for (slot, item) in p.iter_mut().zip(chunk) {
                        *slot = point_number(item, key, index)?;
                    }
                    Ok(p)
                })
                .collect();
        }
        items
            .iter()
            .enumerate()
            .map(|(index, item)| match item.as_array() {
                Some(xyz) if xyz.len() == 3 => {
                    let mut p = [0.0; 3];
                    for (slot, v) in p.iter_mut().zip(xyz) {
                        *slot = point_number(v, key, index)?;
                    }
                    Ok(p)
                }
                _ => Err(CloudError::InvalidPoint {
                    field: key.to_owned(),
                    index,
                    reason: format!("is {}, not [x, y, z]", kind(item)),
                }),
            })
            .collect()
    }

    /// The number of points: records, `points` or `points_world`, whichever
    /// comes first. (Never `point_count`: a count no array backs could not be
    /// trusted with an allocation.)
    pub(super) fn point_count(&self) -> Result<usize, CloudError> {
        match self {
            Form::Structured { records, .. } => Ok(records.len()),
            Form::Arrays { .. } => {
                if self.field("points").is_some() {
                    Ok(self.local_xyz()?.len())
                } else if self.field("points_world").is_some() {
                    Ok(self.world_xyz()?.len())
                } else {
                    Err(CloudError::MissingField {
                        field: "points".to_owned(),
                    })
                }
            }
        }
    }

    /// A top-level non-negative integer (`rings`, `columns`).
    pub(super) fn count_field(&self, key: &str) -> Result<usize, CloudError> {
        let value = self.field(key).ok_or_else(|| CloudError::MissingField {
            field: key.to_owned(),
        })?;
        index_value(value).ok_or_else(|| CloudError::InvalidCloud {
            field: key.to_owned(),
            reason: format!("must be a non-negative integer, got {}", kind(value)),
        })
    }

    pub(super) fn intensities(&self) -> Result<Vec<f64>, CloudError> {
        match self {
            Form::Structured { records, .. } => {
                if records.iter().any(|r| r.get("intensity").is_some()) {
                    records
                        .iter()
                        .enumerate()
                        .map(|(i, r)| record_number(r, "intensity", i))
                        .collect()
                } else {
                    Ok(vec![0.0; records.len()])
                }
            }
            Form::Arrays { .. } => {
                let n = self.point_count()?;
                match self.field("intensities") {
                    Some(value) => self.per_point_numbers("intensities", value, n),
                    None => Ok(vec![0.0; n]),
                }
            }
        }
    }

    /// One finite number per point from a flat array.
    pub(super) fn per_point_numbers(
        &self,
        key: &str,
        value: &Value,
        n: usize,
    ) -> Result<Vec<f64>, CloudError> {
        let items = array(value, key)?;
        if items.len() != n {
            return Err(CloudError::LengthMismatch {
                field: key.to_owned(),
                expected: n,
                found: items.len(),
            });
        }
        items
            .iter()
            .enumerate()
            .map(|(index, item)| point_number(item, key, index))
            .collect()
    }

    /// Each point's range: `ranges` / record `range`, else |local point|.
    pub(super) fn ranges(&self) -> Result<Vec<f64>, CloudError> {
        let check = |key: &str, ranges: Vec<f64>| match ranges.iter().position(|r| *r < 0.0) {
            Some(index) => Err(CloudError::InvalidPoint {
                field: key.to_owned(),
                index,
                reason: "has a negative range".to_owned(),
            }),
            None => Ok(ranges),
        };
        match self {
            Form::Structured { records, .. }
                if records.iter().any(|r| r.get("range").is_some()) =>
            {
                let ranges = records
                    .iter()
                    .enumerate()
                    .map(|(i, r)| record_number(r, "range", i))
                    .collect::<Result<_, _>>()?;
                check("point_cloud", ranges)
            }
            Form::Arrays { .. } if self.field("ranges").is_some() => {
                let n = self.point_count()?;
                let value = self.field("ranges").unwrap_or(&Value::Null);
                check("ranges", self.per_point_numbers("ranges", value, n)?)
            }
            _ => Ok(self.local_xyz()?.iter().map(norm).collect()),
        }
    }

    /// Each point's `[ring, column]`.
    pub(super) fn ring_column(&self) -> Result<Vec<[usize; 2]>, CloudError> {
        match self {
            Form::Structured { records, .. } => records
                .iter()
                .enumerate()
                .map(|(i, r)| Ok([record_index(r, "ring", i)?, record_index(r, "column", i)?]))
                .collect(),
            Form::Arrays { .. } => {
                const KEY: &str = "ring_column";
                let value = self.field(KEY).ok_or_else(|| CloudError::MissingField {
                    field: KEY.to_owned(),
                })?;
                let n = self.point_count()?;
                let items = array(value, KEY)?;
                if items.len() != n {
                    return Err(CloudError::LengthMismatch {
                        field: KEY.to_owned(),
                        expected: n,
                        found: items.len(),
                    });
                }
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        let pair = item.as_array().and_then(|rc| match rc.as_slice() {
                            [r, c] => Some([index_value(r)?, index_value(c)?]),
                            _ => None,
                        });
                        pair.ok_or_else(|| CloudError::InvalidPoint {
                            field: KEY.to_owned(),
                            index,
                            reason: format!(
                                "is {}, not [ring, column] of non-negative integers",
                                kind(item)
                            ),
                        })
                    })
                    .collect()
            }
        }
    }
}

/// `value` as an array, or an [`CloudError::InvalidCloud`] for `key`.
pub(super) fn array<'v>(value: &'v Value, key: &str) -> Result<&'v [Value], CloudError> {
    value
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| CloudError::InvalidCloud {
            field: key.to_owned(),
            reason: format!("must be an array, got {}", kind(value)),
        })
}

/// A finite number of point `index` in `key`.
pub(super) fn point_number(value: &Value, key: &str, index: usize) -> Result<f64, CloudError> {
    value
        .as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| CloudError::InvalidPoint {
            field: key.to_owned(),
            index,
            reason: format!("has {}, not a finite number", kind(value)),
        })
}

/// Field `key` of structured record `index`, a finite number.
pub(super) fn record_number(record: &Value, key: &str, index: usize) -> Result<f64, CloudError> {
    match record.get(key) {
        Some(value) => {
            value
                .as_f64()
                .filter(|x| x.is_finite())
                .ok_or_else(|| CloudError::InvalidPoint {
                    field: "point_cloud".to_owned(),
                    index,
                    reason: format!("has `{key}` = {}, not a finite number", kind(value)),
                })
        }
        None => Err(missing_in_record(record, key, index)),
    }
}

/// Field `key` of structured record `index`, a non-negative integer.
pub(super) fn record_index(record: &Value, key: &str, index: usize) -> Result<usize, CloudError> {
    match record.get(key) {
        Some(value) => index_value(value).ok_or_else(|| CloudError::InvalidPoint {
            field: "point_cloud".to_owned(),
            index,
            reason: format!("has `{key}` = {}, not a non-negative integer", kind(value)),
        }),
        None => Err(missing_in_record(record, key, index)),
    }
}

pub(super) fn missing_in_record(record: &Value, key: &str, index: usize) -> CloudError {
    CloudError::InvalidPoint {
        field: "point_cloud".to_owned(),
        index,
        reason: if record.is_object() {
            format!("has no `{key}`")
        } else {
            format!("is {}, not a point record", kind(record))
        },
    }
}

/// A non-negative integer, also written as a float with no fraction (as
/// NumPy-produced JSON may have it).
pub(super) fn index_value(value: &Value) -> Option<usize> {
    if let Some(n) = value.as_u64() {
        return usize::try_from(n).ok();
    }
    let x = value.as_f64()?;
    // Exactly representable integers only; the bound keeps the cast exact.
    if x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_992.0 {
        usize::try_from(x as u64).ok()
    } else {
        None
    }
}

/// A short description of a JSON value for error messages.
pub(super) fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.chars().count() <= 24 => format!("{s:?}"),
        Value::String(_) => "a string".to_owned(),
        Value::Array(items) => format!("an array of {}", items.len()),
        Value::Object(_) => "an object".to_owned(),
    }
}

pub(super) fn norm(p: &[f64; 3]) -> f64 {
    (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt()
}
