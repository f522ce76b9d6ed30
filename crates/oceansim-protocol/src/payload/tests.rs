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

#[test]
fn fins_accept_order_or_names_within_bounds() {
    let ordered: Fins = parse_payload(json!({"fins": [0.1, -0.2, 1200]})).unwrap();
    assert_eq!(ordered.fins, FinCommand::Ordered(vec![0.1, -0.2, 1200.0]));
    assert_eq!(ordered.agent_id, None);
    let named: Fins =
        parse_payload(json!({"fins": {"rudder": 0.1, "propeller": 900}, "agent_name": "remus"}))
            .unwrap();
    assert_eq!(
        named.fins,
        FinCommand::Named([("propeller".into(), 900.0), ("rudder".into(), 0.1)].into())
    );
    assert_eq!(named.agent_id.as_deref(), Some("remus"));
    // Round trip through the wire form.
    let back: Fins = parse_payload(payload_value(&named)).unwrap();
    assert_eq!(back, named);
    assert!(parse_payload::<Fins>(json!({"fins": vec![0.0; MAX_FINS]})).is_ok());
    for bad in [
        json!({"fins": vec![0.0; MAX_FINS + 1]}),
        json!({"fins": [0.1, "x", 3]}),
        json!({"fins": [0.1, null]}),
        json!({"fins": {"rudder": "hard"}}),
        json!({"fins": {"": 1.0}}),
        json!({"fins": 0.5}),
        json!({"fins": "0.1,0.2"}),
    ] {
        let err = parse_payload::<Fins>(bad.clone()).unwrap_err();
        assert_eq!(
            err.code(),
            crate::ErrorCode::InvalidActionShape,
            "{bad}: {err}"
        );
    }
    let err = parse_payload::<Fins>(json!({})).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidMessage);
    let err = parse_payload::<Fins>(json!({"fins": [0.0], "agent_id": ""})).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidMessage);
    assert!(err.to_string().contains("agent_id"), "{err}");
}

#[test]
fn step_takes_at_most_one_command() {
    let s: Step = parse_payload(json!({"fins": [0.0, 0.0, 500]})).unwrap();
    assert_eq!(s.fins, Some(FinCommand::Ordered(vec![0.0, 0.0, 500.0])));
    for two in [
        json!({"force": [0, 0, 0], "thrusters": [0.1]}),
        json!({"force": [0, 0, 0], "fins": [0.1]}),
        json!({"thrusters": [0.1], "fins": [0.1]}),
        json!({"force": [0, 0, 0], "thrusters": [0.1], "fins": [0.1]}),
    ] {
        let err = parse_payload::<Step>(two.clone()).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidMessage, "{two}");
        assert!(err.to_string().contains("at most one"), "{err}");
    }
    let err = parse_payload::<Step>(json!({"fins": [f64::MAX, 1]})).map(|_| ());
    assert!(
        err.is_ok(),
        "large finite values are the simulator's to clip"
    );
}
