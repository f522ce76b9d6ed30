//! Point-cloud helpers (the Rust counterpart of the Python SDK's
//! `point_cloud`): coordinates, intensities, organised range images and
//! dense rows from the clouds in sensor payloads.
//!
//! Points are in metres. *Local* coordinates (`points`) are in the sensor
//! frame, as the simulator emits them; *world* coordinates (`points_world`)
//! are in the OceanSim user frame (x east, y north, z up; depth = −z).
//!
//! Every helper reads these forms of a cloud:
//!
//! * **array form** (`lidar_3d`, `rgbd_dense_cloud` payloads): `points` =
//!   `[[x, y, z], ...]`, `points_world` likewise, and optionally
//!   `ring_column` = `[[ring, column], ...]`, `rings`, `columns`,
//!   `intensities` = `[i, ...]`, `ranges` = `[r, ...]`, `colors_rgb`,
//!   `point_count`;
//! * **compact form**: the same keys with flat arrays, `points` =
//!   `[x0, y0, z0, x1, y1, z1, ...]` (a length that is a multiple of 3);
//! * **structured form**: `point_cloud` = `[{"x": .., "y": .., "z": ..,
//!   "intensity": .., "ring": .., "column": .., "wx": .., "wy": .., "wz": ..},
//!   ...]`, world coordinates in `wx`/`wy`/`wz` or
//!   `x_world`/`y_world`/`z_world`, and `rings`/`columns` next to
//!   `point_cloud`;
//! * a **bare array**: a list of points (`[[x, y, z], ...]` or flat) is read
//!   as `points`, a list of objects as `point_cloud`.
//!
//! No helper panics on malformed input: each returns a [`CloudError`].
//!
//! ```
//! use oceansim_client::cloud::{filter_by_range, xyz_from_cloud};
//! use serde_json::json;
//!
//! let lidar = json!({
//!     "sensor_type": "lidar_3d", "rings": 8, "columns": 36, "point_count": 2,
//!     "points": [[-8.287, 0.0, 2.22], [-30.0, 0.0, 0.0]],
//!     "points_world": [[0.0, 9.213, -8.13], [0.0, 31.0, -5.91]],
//!     "ring_column": [[0, 0], [1, 0]],
//! });
//! let local = xyz_from_cloud(&lidar, false)?;
//! assert_eq!(local[0], [-8.287, 0.0, 2.22]);
//! assert_eq!(filter_by_range(&local, 0.5, 25.0).len(), 1);
//! # Ok::<(), oceansim_client::cloud::CloudError>(())
//! ```

use serde_json::Value;

mod form;
use form::{norm, Cache, Form};

/// The largest organised range image [`organized_range_image`] builds
/// (`rings × columns` cells): far above any simulated lidar, low enough
/// that a corrupt payload cannot exhaust memory.
pub const MAX_RANGE_IMAGE_CELLS: usize = 1 << 24;

/// A cloud that cannot be read. [`CloudError::code`] is a stable
/// machine-readable code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CloudError {
    /// The value is neither an object nor an array, or a cloud field has the
    /// wrong type or shape (a flat array whose length is not a multiple of
    /// 3, a non-integer `rings`, ...).
    #[error("invalid cloud: `{field}` {reason}")]
    InvalidCloud {
        /// The field (`cloud` for the whole value).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A field the request needs is absent (`points_world` for world
    /// coordinates, `rings`/`columns`/`ring_column` for a range image, ...).
    #[error("cloud has no `{field}`")]
    MissingField {
        /// The missing field.
        field: String,
    },
    /// One point (or per-point value) is malformed or not finite.
    #[error("cloud `{field}`: point {index} {reason}")]
    InvalidPoint {
        /// The array holding the point (`points`, `point_cloud`, ...).
        field: String,
        /// The point's index.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A per-point array whose length differs from the point count.
    #[error("cloud `{field}` has {found} entries for {expected} points")]
    LengthMismatch {
        /// The per-point array.
        field: String,
        /// The point count.
        expected: usize,
        /// The array's length.
        found: usize,
    },
    /// A point's ring or column outside the `rings × columns` image.
    #[error(
        "point {index} is at ring {ring}, column {column}, outside the {rings}×{columns} image"
    )]
    IndexOutOfRange {
        /// The point's index.
        index: usize,
        /// Its ring.
        ring: usize,
        /// Its column.
        column: usize,
        /// The image's rings.
        rings: usize,
        /// The image's columns.
        columns: usize,
    },
}

impl CloudError {
    /// Stable machine-readable code: `invalid_cloud`, `missing_cloud_field`,
    /// `invalid_cloud_point`, `cloud_length_mismatch` or
    /// `ring_column_out_of_range`.
    ///
    /// ```
    /// use oceansim_client::cloud::xyz_from_cloud;
    /// use serde_json::json;
    ///
    /// let err = xyz_from_cloud(&json!({"points": [[1.0, 2.0, 3.0]]}), true).unwrap_err();
    /// assert_eq!(err.code(), "missing_cloud_field");
    /// assert_eq!(err.field(), Some("points_world"));
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            CloudError::InvalidCloud { .. } => "invalid_cloud",
            CloudError::MissingField { .. } => "missing_cloud_field",
            CloudError::InvalidPoint { .. } => "invalid_cloud_point",
            CloudError::LengthMismatch { .. } => "cloud_length_mismatch",
            CloudError::IndexOutOfRange { .. } => "ring_column_out_of_range",
        }
    }

    /// The cloud field the error is about (`ring_column` for an index out
    /// of range).
    pub fn field(&self) -> Option<&str> {
        match self {
            CloudError::InvalidCloud { field, .. }
            | CloudError::MissingField { field }
            | CloudError::InvalidPoint { field, .. }
            | CloudError::LengthMismatch { field, .. } => Some(field),
            CloudError::IndexOutOfRange { .. } => Some("ring_column"),
        }
    }
}

/// An organised range image: `rings` rows of `columns` ranges (m), row-major,
/// NaN where the beam had no return.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeImage {
    /// Rows (lidar rings, lowest elevation first as the simulator numbers
    /// them).
    pub rings: usize,
    /// Columns (azimuths).
    pub columns: usize,
    /// `rings × columns` ranges (m), row-major: cell `(ring, column)` is at
    /// `ring * columns + column`.
    pub ranges: Vec<f64>,
}

impl RangeImage {
    /// The range at `(ring, column)`: NaN where there was no return and
    /// outside the image.
    ///
    /// ```
    /// use oceansim_client::cloud::organized_range_image;
    /// use serde_json::json;
    ///
    /// let cloud = json!({"rings": 2, "columns": 3, "points": [[3.0, 4.0, 0.0]], "ring_column": [[1, 2]]});
    /// let image = organized_range_image(&cloud)?;
    /// assert_eq!(image.get(1, 2), 5.0);
    /// assert!(image.get(0, 0).is_nan());
    /// assert!(image.get(7, 7).is_nan());
    /// # Ok::<(), oceansim_client::cloud::CloudError>(())
    /// ```
    pub fn get(&self, ring: usize, column: usize) -> f64 {
        if ring >= self.rings || column >= self.columns {
            return f64::NAN;
        }
        ring.checked_mul(self.columns)
            .and_then(|row| row.checked_add(column))
            .and_then(|k| self.ranges.get(k))
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// The ranges of one ring (`None` outside the image).
    pub fn row(&self, ring: usize) -> Option<&[f64]> {
        let start = ring.checked_mul(self.columns)?;
        if ring >= self.rings {
            return None;
        }
        self.ranges.get(start..start.checked_add(self.columns)?)
    }

    /// How many cells hold a return.
    pub fn returns(&self) -> usize {
        self.ranges.iter().filter(|r| !r.is_nan()).count()
    }
}

/// The Nx3 coordinates (m) of a cloud in any form: local (sensor frame,
/// `points`, or `x`/`y`/`z`) or, with `world`, OceanSim user frame
/// (`points_world`, or `wx`/`wy`/`wz` / `x_world`/`y_world`/`z_world`).
///
/// Fails when the requested coordinates are absent or a point is malformed
/// or not finite.
///
/// ```
/// use oceansim_client::cloud::xyz_from_cloud;
/// use serde_json::json;
///
/// let compact = json!({"points": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]});
/// assert_eq!(xyz_from_cloud(&compact, false)?, vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
///
/// let structured = json!({"point_cloud": [{"x": 1.0, "y": 2.0, "z": 3.0, "wx": 7.0, "wy": 8.0, "wz": 9.0}]});
/// assert_eq!(xyz_from_cloud(&structured, true)?, vec![[7.0, 8.0, 9.0]]);
/// # Ok::<(), oceansim_client::cloud::CloudError>(())
/// ```
pub fn xyz_from_cloud(cloud: &Value, world: bool) -> Result<Vec<[f64; 3]>, CloudError> {
    let form = Form::of(cloud)?;
    if world {
        form.world_xyz()
    } else {
        form.local_xyz()
    }
}

/// The per-point intensities: `intensities` (array form) or each record's
/// `intensity` (structured form); zeros, one per point, for a cloud that has
/// none.
///
/// Fails when the intensities do not number one per point, or one is not a
/// finite number.
///
/// ```
/// use oceansim_client::cloud::intensity_from_cloud;
/// use serde_json::json;
///
/// let cloud = json!({"points": [[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]});
/// assert_eq!(intensity_from_cloud(&cloud)?, vec![0.0, 0.0]);
///
/// let cloud = json!({"points": [[1.0, 0.0, 0.0]], "intensities": [0.5, 0.7]});
/// assert_eq!(intensity_from_cloud(&cloud).unwrap_err().code(), "cloud_length_mismatch");
/// # Ok::<(), oceansim_client::cloud::CloudError>(())
/// ```
pub fn intensity_from_cloud(cloud: &Value) -> Result<Vec<f64>, CloudError> {
    Form::of(cloud)?.intensities()
}

/// The organised `[rings, columns]` range image of a lidar cloud.
///
/// Each point's cell is its `ring_column` entry (array form) or its
/// `ring`/`column` (structured form); its range is its `ranges` entry (or
/// structured `range`) when given, else the norm of its local coordinates.
/// `rings` and `columns` come from the payload. Cells without a return are
/// NaN; when two points share a cell the nearer one is kept.
///
/// Fails when `rings`, `columns` or the ring/column indices are absent or
/// malformed, an index is outside the image, a per-point array does not
/// number one entry per point, or the image would exceed
/// [`MAX_RANGE_IMAGE_CELLS`].
///
/// ```
/// use oceansim_client::cloud::organized_range_image;
/// use serde_json::json;
///
/// let cloud = json!({
///     "rings": 8, "columns": 36,
///     "points": [[-8.0, 0.0, 6.0], [0.0, 3.0, 4.0]],
///     "ring_column": [[0, 0], [7, 35]],
/// });
/// let image = organized_range_image(&cloud)?;
/// assert_eq!((image.rings, image.columns, image.ranges.len()), (8, 36, 288));
/// assert_eq!(image.get(0, 0), 10.0);
/// assert_eq!(image.get(7, 35), 5.0);
/// assert_eq!(image.returns(), 2);
/// # Ok::<(), oceansim_client::cloud::CloudError>(())
/// ```
pub fn organized_range_image(cloud: &Value) -> Result<RangeImage, CloudError> {
    let form = Form::of(cloud)?;
    let rings = form.count_field("rings")?;
    let columns = form.count_field("columns")?;
    let cells = rings
        .checked_mul(columns)
        .filter(|cells| *cells <= MAX_RANGE_IMAGE_CELLS)
        .ok_or_else(|| CloudError::InvalidCloud {
            field: "rings".to_owned(),
            reason: format!(
                "× `columns` ({rings} × {columns}) exceeds {MAX_RANGE_IMAGE_CELLS} cells"
            ),
        })?;
    let ring_column = form.ring_column()?;
    let ranges = form.ranges()?;
    if ranges.len() != ring_column.len() {
        return Err(CloudError::LengthMismatch {
            field: "ring_column".to_owned(),
            expected: ranges.len(),
            found: ring_column.len(),
        });
    }
    let mut image = vec![f64::NAN; cells];
    for (index, (&[ring, column], &range)) in ring_column.iter().zip(&ranges).enumerate() {
        if ring >= rings || column >= columns {
            return Err(CloudError::IndexOutOfRange {
                index,
                ring,
                column,
                rings,
                columns,
            });
        }
        // In the image, so below `cells`.
        if let Some(cell) = image.get_mut(ring * columns + column) {
            if cell.is_nan() || range < *cell {
                *cell = range;
            }
        }
    }
    Ok(RangeImage {
        rings,
        columns,
        ranges: image,
    })
}

/// The points whose distance from the origin (the sensor, for local
/// coordinates) is within `[min_range, max_range]` (m); pass
/// `f64::INFINITY` for no upper bound. Non-finite points are dropped.
///
/// ```
/// use oceansim_client::cloud::filter_by_range;
///
/// let points = [[3.0, 4.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.0, 100.0]];
/// assert_eq!(filter_by_range(&points, 1.0, 5.0), vec![[3.0, 4.0, 0.0]]);
/// assert_eq!(filter_by_range(&points, 1.0, f64::INFINITY).len(), 2);
/// ```
pub fn filter_by_range(points: &[[f64; 3]], min_range: f64, max_range: f64) -> Vec<[f64; 3]> {
    points
        .iter()
        .filter(|p| {
            let r = norm(p);
            r.is_finite() && min_range <= r && r <= max_range
        })
        .copied()
        .collect()
}

/// Dense rows of the named per-point `fields`, one row per point (the
/// counterpart of the Python SDK's `structured_cloud_to_numpy`).
///
/// Fields every form provides: `x`, `y`, `z` (local), `wx`, `wy`, `wz` (or
/// `x_world`, `y_world`, `z_world`: world), `intensity` (0 when the cloud
/// has none), `ring`, `column` and `range` (as in
/// [`organized_range_image`]). Structured records may add any other numeric
/// field (every record must have it).
///
/// ```
/// use oceansim_client::cloud::structured_cloud_to_rows;
/// use serde_json::json;
///
/// let lidar = json!({
///     "points": [[3.0, 4.0, 0.0]], "points_world": [[1.0, 2.0, -3.0]],
///     "ring_column": [[2, 5]], "intensities": [0.25],
/// });
/// let rows = structured_cloud_to_rows(&lidar, &["x", "wz", "intensity", "ring", "column", "range"])?;
/// assert_eq!(rows, vec![vec![3.0, -3.0, 0.25, 2.0, 5.0, 5.0]]);
/// # Ok::<(), oceansim_client::cloud::CloudError>(())
/// ```
pub fn structured_cloud_to_rows(
    cloud: &Value,
    fields: &[&str],
) -> Result<Vec<Vec<f64>>, CloudError> {
    let form = Form::of(cloud)?;
    let n = form.point_count()?;
    let mut cache = Cache::default();
    let mut rows = vec![Vec::with_capacity(fields.len()); n];
    for field in fields {
        let column = cache.column(&form, field)?;
        if column.len() != n {
            return Err(CloudError::LengthMismatch {
                field: (*field).to_owned(),
                expected: n,
                found: column.len(),
            });
        }
        for (row, value) in rows.iter_mut().zip(column) {
            row.push(value);
        }
    }
    Ok(rows)
}
