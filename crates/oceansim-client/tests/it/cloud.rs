//! Offline tests of the point-cloud helpers: every payload form the
//! server or the SDK writes, read back to the same points; no server.

use oceansim_client::cloud::*;
use serde_json::{json, Value};

/// A `lidar_3d` payload as the server sends it (3 of its returns).
fn lidar_payload() -> Value {
    json!({
        "sensor_type": "lidar_3d", "rings": 8, "columns": 36, "point_count": 3,
        "points": [[-8.287, 0.0, 2.22], [-8.278, 0.0, 1.566], [0.0, 3.0, 4.0]],
        "points_world": [[0.0, 9.213, -8.13], [0.0, 9.222, -7.476], [1.0, 2.0, 3.0]],
        "ring_column": [[0, 0], [1, 0], [7, 35]]
    })
}

const LOCAL: [[f64; 3]; 3] = [[-8.287, 0.0, 2.22], [-8.278, 0.0, 1.566], [0.0, 3.0, 4.0]];
const WORLD: [[f64; 3]; 3] = [[0.0, 9.213, -8.13], [0.0, 9.222, -7.476], [1.0, 2.0, 3.0]];

/// The lidar payload in structured form, world coordinates under `keys`.
fn structured(keys: [&str; 3]) -> Value {
    let records: Vec<Value> = LOCAL
        .iter()
        .zip(&WORLD)
        .zip([[0, 0], [1, 0], [7, 35]])
        .zip([0.1, 0.2, 0.3])
        .map(|(((l, w), rc), i)| {
            let mut r = json!({"x": l[0], "y": l[1], "z": l[2], "intensity": i,
                               "ring": rc[0], "column": rc[1]});
            for (k, v) in keys.iter().zip(w) {
                r[*k] = json!(v);
            }
            r
        })
        .collect();
    json!({"rings": 8, "columns": 36, "point_cloud": records})
}

fn norm(p: [f64; 3]) -> f64 {
    (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt()
}

#[test]
fn every_cloud_form_gives_the_same_xyz() {
    let flat: Vec<f64> = LOCAL.iter().flatten().copied().collect();
    let flat_world: Vec<f64> = WORLD.iter().flatten().copied().collect();
    let forms = [
        ("nested", lidar_payload()),
        ("flat", json!({"points": flat, "points_world": flat_world})),
        ("structured wx", structured(["wx", "wy", "wz"])),
        (
            "structured x_world",
            structured(["x_world", "y_world", "z_world"]),
        ),
    ];
    for (name, cloud) in &forms {
        assert_eq!(xyz_from_cloud(cloud, false).unwrap(), LOCAL, "{name}");
        assert_eq!(xyz_from_cloud(cloud, true).unwrap(), WORLD, "{name}");
    }
    // Bare arrays: points, flat points, records.
    assert_eq!(xyz_from_cloud(&json!(LOCAL), false).unwrap(), LOCAL);
    assert_eq!(xyz_from_cloud(&json!(flat), false).unwrap(), LOCAL);
    let records = structured(["wx", "wy", "wz"])["point_cloud"].clone();
    assert_eq!(xyz_from_cloud(&records, true).unwrap(), WORLD);
}

#[test]
fn empty_cloud_has_no_points() {
    let rgbd = json!({"sensor_type": "rgbd_dense_cloud", "point_count": 0,
                      "points": [], "points_world": [], "colors_rgb": []});
    assert!(xyz_from_cloud(&rgbd, false).unwrap().is_empty());
    assert!(xyz_from_cloud(&rgbd, true).unwrap().is_empty());
    assert!(intensity_from_cloud(&rgbd).unwrap().is_empty());
    assert!(structured_cloud_to_rows(&rgbd, &["x", "intensity"])
        .unwrap()
        .is_empty());
    assert!(xyz_from_cloud(&json!({"point_cloud": []}), true)
        .unwrap()
        .is_empty());
}

#[test]
fn world_coordinates_must_be_present() {
    let cloud = json!({"points": [[1.0, 2.0, 3.0]]});
    assert_eq!(
        xyz_from_cloud(&cloud, false).unwrap(),
        vec![[1.0, 2.0, 3.0]]
    );
    let err = xyz_from_cloud(&cloud, true).unwrap_err();
    assert_eq!(err.code(), "missing_cloud_field");
    assert_eq!(err.field(), Some("points_world"));

    let records = json!({"point_cloud": [{"x": 1.0, "y": 2.0, "z": 3.0}]});
    let err = xyz_from_cloud(&records, true).unwrap_err();
    assert_eq!(err.code(), "missing_cloud_field");
    // Some records with world coordinates, one without: that one is malformed.
    let records = json!({"point_cloud": [
        {"x": 1.0, "y": 2.0, "z": 3.0, "wx": 0.0, "wy": 0.0, "wz": 0.0},
        {"x": 1.0, "y": 2.0, "z": 3.0, "wx": 0.0}
    ]});
    let err = xyz_from_cloud(&records, true).unwrap_err();
    assert_eq!(
        err,
        CloudError::InvalidPoint {
            field: "point_cloud".into(),
            index: 1,
            reason: "has no `wy`".into()
        }
    );
    // No coordinates at all.
    let err = xyz_from_cloud(&json!({"point_count": 3}), false).unwrap_err();
    assert_eq!(err.field(), Some("points"));
}

#[test]
fn malformed_points_are_rejected() {
    let cases = [
        (
            json!({"points": [1.0, 2.0, 3.0, 4.0]}),
            "invalid_cloud",
            "points",
        ),
        (
            json!({"points": [[1.0, 2.0]]}),
            "invalid_cloud_point",
            "points",
        ),
        (
            json!({"points": [[1.0, 2.0, 3.0], [1.0, "2", 3.0]]}),
            "invalid_cloud_point",
            "points",
        ),
        (
            json!({"points": [1.0, 2.0, null]}),
            "invalid_cloud_point",
            "points",
        ),
        (
            json!({"points": [1.0, 2.0, [3.0]]}),
            "invalid_cloud_point",
            "points",
        ),
        (json!({"points": "1 2 3"}), "invalid_cloud", "points"),
        (
            json!({"point_cloud": {"x": 1.0}}),
            "invalid_cloud",
            "point_cloud",
        ),
        (
            json!({"point_cloud": [{"x": 1.0, "y": 2.0}]}),
            "invalid_cloud_point",
            "point_cloud",
        ),
        (
            json!({"point_cloud": [{"x": 1.0, "y": 2.0, "z": 3.0}, 5]}),
            "invalid_cloud_point",
            "point_cloud",
        ),
        (json!(7.0), "invalid_cloud", "cloud"),
    ];
    for (cloud, code, field) in cases {
        let err = xyz_from_cloud(&cloud, false).expect_err(&cloud.to_string());
        assert_eq!(err.code(), code, "{cloud}: {err}");
        assert_eq!(err.field(), Some(field), "{cloud}: {err}");
    }
    let err = xyz_from_cloud(&json!({"points": [[0.0, 0.0, 0.0], [1.0, 2.0]]}), false).unwrap_err();
    assert!(
        matches!(err, CloudError::InvalidPoint { index: 1, .. }),
        "{err}"
    );
}

#[test]
fn intensities_default_to_zeros() {
    assert_eq!(
        intensity_from_cloud(&lidar_payload()).unwrap(),
        vec![0.0; 3]
    );
    let flat = json!({"points": [0.0, 0.0, 1.0, 0.0, 0.0, 2.0]});
    assert_eq!(intensity_from_cloud(&flat).unwrap(), vec![0.0; 2]);
    let mut records = structured(["wx", "wy", "wz"]);
    for r in records["point_cloud"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("intensity");
    }
    assert_eq!(intensity_from_cloud(&records).unwrap(), vec![0.0; 3]);
}

#[test]
fn intensities_are_read_per_point() {
    let mut lidar = lidar_payload();
    lidar["intensities"] = json!([0.5, 0.25, 1.0]);
    assert_eq!(intensity_from_cloud(&lidar).unwrap(), vec![0.5, 0.25, 1.0]);
    assert_eq!(
        intensity_from_cloud(&structured(["wx", "wy", "wz"])).unwrap(),
        vec![0.1, 0.2, 0.3]
    );
}

#[test]
fn intensity_count_mismatch_is_an_error() {
    let mut lidar = lidar_payload();
    lidar["intensities"] = json!([0.5, 0.25]);
    let err = intensity_from_cloud(&lidar).unwrap_err();
    assert_eq!(
        err,
        CloudError::LengthMismatch {
            field: "intensities".into(),
            expected: 3,
            found: 2
        }
    );
    assert_eq!(err.code(), "cloud_length_mismatch");
    lidar["intensities"] = json!([0.5, 0.25, "bright"]);
    assert_eq!(
        intensity_from_cloud(&lidar).unwrap_err().code(),
        "invalid_cloud_point"
    );
    // One structured record without intensity while others have one.
    let mut records = structured(["wx", "wy", "wz"]);
    records["point_cloud"][2]
        .as_object_mut()
        .unwrap()
        .remove("intensity");
    let err = intensity_from_cloud(&records).unwrap_err();
    assert!(
        matches!(err, CloudError::InvalidPoint { index: 2, .. }),
        "{err}"
    );
}

#[test]
fn range_image_places_ranges_at_ring_and_column() {
    let image = organized_range_image(&lidar_payload()).unwrap();
    assert_eq!((image.rings, image.columns), (8, 36));
    assert_eq!(image.ranges.len(), 8 * 36);
    assert_eq!(image.get(0, 0), norm(LOCAL[0]));
    assert_eq!(image.get(1, 0), norm(LOCAL[1]));
    assert_eq!(image.get(7, 35), 5.0);
    assert_eq!(image.ranges[7 * 36 + 35], 5.0);
    assert_eq!(image.ranges[36], norm(LOCAL[1]));
    assert_eq!(image.returns(), 3);
    let filled = [(0, 0), (1, 0), (7, 35)];
    for ring in 0..8 {
        for column in 0..36 {
            if !filled.contains(&(ring, column)) {
                assert!(image.get(ring, column).is_nan(), "({ring}, {column})");
            }
        }
    }
    assert_eq!(image.row(7).unwrap().len(), 36);
    assert_eq!(image.row(7).unwrap()[35], 5.0);
    assert!(image.row(8).is_none());
    assert!(image.get(8, 0).is_nan() && image.get(0, 36).is_nan());
}

#[test]
fn range_image_from_structured_form_matches_array_form() {
    let array = organized_range_image(&lidar_payload()).unwrap();
    let records = organized_range_image(&structured(["wx", "wy", "wz"])).unwrap();
    assert_eq!((records.rings, records.columns), (8, 36));
    for (a, b) in array.ranges.iter().zip(&records.ranges) {
        assert!(a == b || (a.is_nan() && b.is_nan()), "{a} vs {b}");
    }
    assert_eq!(records.returns(), 3);
}

#[test]
fn range_image_uses_given_ranges_and_keeps_the_nearer_return() {
    let mut lidar = lidar_payload();
    lidar["ranges"] = json!([10.0, 11.0, 12.0]);
    let image = organized_range_image(&lidar).unwrap();
    assert_eq!(
        [image.get(0, 0), image.get(1, 0), image.get(7, 35)],
        [10.0, 11.0, 12.0]
    );
    lidar["ranges"] = json!([10.0, -1.0, 12.0]);
    let err = organized_range_image(&lidar).unwrap_err();
    assert!(
        matches!(err, CloudError::InvalidPoint { index: 1, .. }),
        "{err}"
    );

    let shared = json!({"rings": 1, "columns": 2,
                        "points": [[4.0, 0.0, 0.0], [2.0, 0.0, 0.0], [9.0, 0.0, 0.0]],
                        "ring_column": [[0, 1], [0, 1], [0, 1]]});
    let image = organized_range_image(&shared).unwrap();
    assert_eq!(image.get(0, 1), 2.0);
    assert!(image.get(0, 0).is_nan());
}

#[test]
fn range_image_rejects_out_of_range_indices() {
    let mut lidar = lidar_payload();
    lidar["ring_column"][2] = json!([8, 0]);
    let err = organized_range_image(&lidar).unwrap_err();
    assert_eq!(
        err,
        CloudError::IndexOutOfRange {
            index: 2,
            ring: 8,
            column: 0,
            rings: 8,
            columns: 36
        }
    );
    assert_eq!(err.code(), "ring_column_out_of_range");
    lidar["ring_column"][2] = json!([0, 36]);
    assert_eq!(
        organized_range_image(&lidar).unwrap_err().code(),
        "ring_column_out_of_range"
    );
    let mut records = structured(["wx", "wy", "wz"]);
    records["point_cloud"][0]["column"] = json!(40);
    assert!(matches!(
        organized_range_image(&records).unwrap_err(),
        CloudError::IndexOutOfRange {
            index: 0,
            column: 40,
            ..
        }
    ));
}

#[test]
fn range_image_needs_its_shape_and_indices() {
    for (field, code) in [
        ("rings", "missing_cloud_field"),
        ("columns", "missing_cloud_field"),
        ("ring_column", "missing_cloud_field"),
    ] {
        let mut lidar = lidar_payload();
        lidar.as_object_mut().unwrap().remove(field);
        let err = organized_range_image(&lidar).unwrap_err();
        assert_eq!((err.code(), err.field()), (code, Some(field)), "{err}");
    }
    let mut lidar = lidar_payload();
    lidar["rings"] = json!(-8);
    assert_eq!(
        organized_range_image(&lidar).unwrap_err().code(),
        "invalid_cloud"
    );
    let mut lidar = lidar_payload();
    lidar["ring_column"] = json!([[0, 0], [1, 0]]);
    assert_eq!(
        organized_range_image(&lidar).unwrap_err().code(),
        "cloud_length_mismatch"
    );
    let mut lidar = lidar_payload();
    lidar["ring_column"][1] = json!([1, -1]);
    assert_eq!(
        organized_range_image(&lidar).unwrap_err().code(),
        "invalid_cloud_point"
    );
    // A corrupt shape cannot make it allocate without bound.
    let mut lidar = lidar_payload();
    lidar["rings"] = json!(u64::MAX);
    lidar["columns"] = json!(1u64 << 40);
    assert_eq!(
        organized_range_image(&lidar).unwrap_err().code(),
        "invalid_cloud"
    );
}

#[test]
fn filter_by_range_keeps_the_closed_interval() {
    let points = [
        [3.0, 4.0, 0.0],  // 5
        [0.0, 0.0, 1.0],  // 1
        [0.0, 0.0, 0.99], // below
        [6.0, 8.0, 0.0],  // 10
        [0.0, 10.001, 0.0],
        [f64::NAN, 0.0, 0.0],
        [f64::INFINITY, 0.0, 0.0],
    ];
    assert_eq!(
        filter_by_range(&points, 1.0, 10.0),
        vec![[3.0, 4.0, 0.0], [0.0, 0.0, 1.0], [6.0, 8.0, 0.0]]
    );
    assert_eq!(filter_by_range(&points, 5.0, 5.0), vec![[3.0, 4.0, 0.0]]);
    assert_eq!(filter_by_range(&points, 0.0, f64::INFINITY).len(), 5);
    assert_eq!(
        filter_by_range(&points, 10.0, f64::INFINITY),
        vec![[6.0, 8.0, 0.0], [0.0, 10.001, 0.0]]
    );
    assert!(filter_by_range(&points, 20.0, 1.0).is_empty());
    assert!(filter_by_range(&[], 0.0, 1.0).is_empty());
}

#[test]
fn rows_from_structured_records() {
    let mut records = structured(["x_world", "y_world", "z_world"]);
    records["point_cloud"][0]["snr"] = json!(3.5);
    records["point_cloud"][1]["snr"] = json!(4.5);
    records["point_cloud"][2]["snr"] = json!(5.5);
    let rows =
        structured_cloud_to_rows(&records, &["x", "wy", "intensity", "ring", "column", "snr"])
            .unwrap();
    assert_eq!(
        rows,
        vec![
            vec![-8.287, 9.213, 0.1, 0.0, 0.0, 3.5],
            vec![-8.278, 9.222, 0.2, 1.0, 0.0, 4.5],
            vec![0.0, 2.0, 0.3, 7.0, 35.0, 5.5],
        ]
    );
    let err = structured_cloud_to_rows(&records, &["x", "doppler"]).unwrap_err();
    assert_eq!(err.code(), "invalid_cloud_point");
    assert_eq!(
        structured_cloud_to_rows(&records, &[]).unwrap(),
        vec![Vec::<f64>::new(); 3]
    );
}

#[test]
fn rows_from_array_form_are_synthesized() {
    let fields = [
        "x",
        "y",
        "z",
        "intensity",
        "ring",
        "column",
        "wx",
        "wy",
        "wz",
        "range",
    ];
    let rows = structured_cloud_to_rows(&lidar_payload(), &fields).unwrap();
    assert_eq!(rows.len(), 3);
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), fields.len());
        assert_eq!(row[..3], LOCAL[k]);
        assert_eq!(row[3], 0.0);
        assert_eq!(row[6..9], WORLD[k]);
        assert_eq!(row[9], norm(LOCAL[k]));
    }
    assert_eq!((rows[2][4], rows[2][5]), (7.0, 35.0));
    // The same rows as the structured form.
    let records = structured(["wx", "wy", "wz"]);
    let structured_rows = structured_cloud_to_rows(&records, &["x", "y", "z", "wx", "wy", "wz"]);
    let array_rows = structured_cloud_to_rows(
        &lidar_payload(),
        &["x", "y", "z", "x_world", "y_world", "z_world"],
    );
    assert_eq!(structured_rows.unwrap(), array_rows.unwrap());
    // Fields an array-form cloud does not have.
    let err = structured_cloud_to_rows(&lidar_payload(), &["snr"]).unwrap_err();
    assert_eq!(
        (err.code(), err.field()),
        ("missing_cloud_field", Some("snr"))
    );
    let err =
        structured_cloud_to_rows(&json!({"points": [[1.0, 0.0, 0.0]]}), &["ring"]).unwrap_err();
    assert_eq!(err.field(), Some("ring_column"));
}
