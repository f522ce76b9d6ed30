use super::*;
use serde_json::json;

#[test]
fn vector_accepts_exact_length_of_numbers() {
    let f: Force = parse_payload(json!({"force": [1, 2.5, -3]})).unwrap();
    assert_eq!(f.force.0, [1.0, 2.5, -3.0]);
}

#[test]
fn vector_shape_errors_are_invalid_action_shape() {
    for bad in [
        json!({"force": [1, 2]}),
        json!({"force": [1, 2, 3, 4]}),
        json!({"force": [1, "2", 3]}),
        json!({"force": [1, null, 3]}),
        json!({"force": [[1], 2, 3]}),
        json!({"force": "1,2,3"}),
        json!({"force": {"x": 1}}),
    ] {
        let err = parse_payload::<Force>(bad.clone()).unwrap_err();
        assert_eq!(
            err.code(),
            crate::ErrorCode::InvalidActionShape,
            "{bad}: {err}"
        );
    }
}

#[test]
fn missing_vector_is_invalid_message() {
    let err = parse_payload::<Force>(json!({})).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidMessage);
    assert!(err.to_string().contains("force"), "{err}");
}

#[test]
fn scalar_ranges_are_checked() {
    assert!(parse_payload::<SetTimeScale>(json!({"time_scale": 0})).is_err());
    assert!(parse_payload::<SetTimeScale>(json!({"time_scale": -1})).is_err());
    assert!(parse_payload::<SetTimeScale>(json!({"time_scale": 2})).is_ok());
    assert!(parse_payload::<AcousticConfig>(json!({"packet_drop_rate": 1.5})).is_err());
    assert!(
        parse_payload::<SpawnAgent>(json!({"id": "a", "depth_min": 5.0, "depth_max": 1.0}))
            .is_err()
    );
}

#[test]
fn obstacle_shapes_need_their_dimensions() {
    let ok = json!({"shape": "cylinder", "position": [0,0,0], "radius": 1, "height": 2});
    assert!(parse_payload::<SpawnObstacle>(ok).is_ok());
    let no_height = json!({"shape": "cylinder", "position": [0,0,0], "radius": 1});
    let err = parse_payload::<SpawnObstacle>(no_height).unwrap_err();
    assert!(err.to_string().contains("height"), "{err}");
    let neg_box = json!({"shape": "box", "position": [0,0,0], "size": [1,-1,1]});
    assert!(parse_payload::<SpawnObstacle>(neg_box).is_err());
}

#[test]
fn thrusters_accept_names_or_order() {
    let named: Thrusters =
        parse_payload(json!({"thrusters": {"thruster_0": 0.5, "thruster_1": -1}})).unwrap();
    assert_eq!(
        named.thrusters,
        ThrusterCommand::Named([("thruster_0".into(), 0.5), ("thruster_1".into(), -1.0)].into())
    );
    let ordered: Thrusters = parse_payload(json!({"thrusters": [0.1, 0.2]})).unwrap();
    assert_eq!(ordered.thrusters, ThrusterCommand::Ordered(vec![0.1, 0.2]));
    let err = parse_payload::<Thrusters>(json!({"thrusters": {"t": "x"}})).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidActionShape);
}

#[test]
fn spawn_agent_accepts_aliases_and_keeps_extras() {
    let a: SpawnAgent = parse_payload(json!({
        "id": "target_01", "position": [4.0, -7.0, 6.0],
        "metadata": {"role": "moving_target"}
    }))
    .unwrap();
    assert_eq!(a.agent_name, "target_01");
    assert_eq!(a.location, Some(Vector([4.0, -7.0, 6.0])));
    assert_eq!(a.extra["metadata"]["role"], "moving_target");
}

#[test]
fn path_points_are_planar_or_spatial() {
    let p: NavPath = parse_payload(json!({"path": [[1, 2], [1, 2, 3]]})).unwrap();
    assert_eq!(
        p.path,
        vec![
            PathPoint::Planar([1.0, 2.0]),
            PathPoint::Spatial([1.0, 2.0, 3.0])
        ]
    );
    let err = parse_payload::<NavPath>(json!({"path": [[1]]})).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidActionShape);
}
