//! Round trips for every action and property tests: arbitrary bytes never
//! panic the decoder, encode∘decode is the identity on valid envelopes, and
//! the streaming line decoder agrees with a reference model under every
//! chunking (the proptest stand-in for a `cargo fuzz` target; see
//! `fuzz/fuzz_targets/line_decoder.rs` for the libFuzzer version).

use bytes::BytesMut;
use oceansim_protocol::payload::*;
use oceansim_protocol::{
    Action, ActionName, ErrorCode, NdjsonCodec, Request, RequestId, Response, SingleRequest,
};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use tokio_util::codec::Decoder;

fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        -1e3f64..1e3,
        Just(0.0),
    ]
}

fn vector<const N: usize>() -> impl Strategy<Value = Vector<N>> {
    prop::collection::vec(finite(), N).prop_map(|v| {
        let mut a = [0.0; N];
        a.copy_from_slice(&v);
        Vector(a)
    })
}

fn ident() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_/\\-\u{e9}\u{4e16}]{1,24}"
}

fn opt<T: std::fmt::Debug + Clone>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<T>> {
    prop::option::of(s)
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        finite().prop_map(|x| json!(x)),
        "\\PC{0,12}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn json_map(prefix: &'static str) -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z]{1,6}", json_value(), 0..3).prop_map(move |m| {
        m.into_iter()
            .map(|(k, v)| (format!("{prefix}{k}"), v))
            .collect()
    })
}

fn thrusters() -> impl Strategy<Value = ThrusterCommand> {
    prop_oneof![
        prop::collection::vec(finite(), 0..8).prop_map(ThrusterCommand::Ordered),
        prop::collection::btree_map(ident(), finite(), 0..8)
            .prop_map(|m: BTreeMap<String, f64>| ThrusterCommand::Named(m)),
    ]
}

fn fins() -> impl Strategy<Value = FinCommand> {
    prop_oneof![
        prop::collection::vec(finite(), 0..=MAX_FINS).prop_map(FinCommand::Ordered),
        prop::collection::btree_map(ident(), finite(), 0..4)
            .prop_map(|m: BTreeMap<String, f64>| FinCommand::Named(m)),
    ]
}

fn path_point() -> impl Strategy<Value = PathPoint> {
    prop_oneof![
        vector::<2>().prop_map(|v| PathPoint::Planar(v.0)),
        vector::<3>().prop_map(|v| PathPoint::Spatial(v.0)),
    ]
}

fn path() -> impl Strategy<Value = Vec<PathPoint>> {
    prop::collection::vec(path_point(), 0..6)
}

fn positive() -> impl Strategy<Value = f64> {
    1e-3f64..1e3
}

/// One strategy per action, chosen by name so the match stays exhaustive:
/// adding an action without a strategy fails to compile.
fn action_of(name: ActionName) -> BoxedStrategy<Action> {
    use ActionName as N;
    match name {
        N::GetState => opt(prop_oneof![Just(Detail::Full), Just(Detail::Compact)])
            .prop_map(|detail| Action::GetState(GetState { detail }))
            .boxed(),
        N::GetSensors => opt(prop::collection::vec(ident(), 0..3))
            .prop_map(|sensors| Action::GetSensors(GetSensors { sensors }))
            .boxed(),
        N::Step => prop_oneof![
            Just(Step::default()),
            vector::<3>().prop_map(|f| Step {
                force: Some(f),
                ..Step::default()
            }),
            thrusters().prop_map(|t| Step {
                thrusters: Some(t),
                detail: Some(Detail::Compact),
                ..Step::default()
            }),
            fins().prop_map(|f| Step {
                fins: Some(f),
                ..Step::default()
            }),
        ]
        .prop_map(Action::Step)
        .boxed(),
        N::SetForce => (vector(), opt(ident()))
            .prop_map(|(force, agent_id)| Action::SetForce(Force { force, agent_id }))
            .boxed(),
        N::SetForceWorld => (vector(), opt(ident()))
            .prop_map(|(force, agent_id)| Action::SetForceWorld(Force { force, agent_id }))
            .boxed(),
        N::SetForceBody => (vector(), opt(ident()))
            .prop_map(|(force, agent_id)| Action::SetForceBody(Force { force, agent_id }))
            .boxed(),
        N::SetBodyWrench => (vector(), opt(ident()))
            .prop_map(|(wrench, agent_id)| Action::SetBodyWrench(BodyWrench { wrench, agent_id }))
            .boxed(),
        N::SetBodyVelocity => (vector(), opt(ident()))
            .prop_map(|(velocity, agent_id)| {
                Action::SetBodyVelocity(BodyVelocity { velocity, agent_id })
            })
            .boxed(),
        N::SetThrust => (thrusters(), opt(ident()))
            .prop_map(|(thrusters, agent_id)| {
                Action::SetThrust(Thrusters {
                    thrusters,
                    agent_id,
                })
            })
            .boxed(),
        N::SetThrusters => (thrusters(), opt(ident()))
            .prop_map(|(thrusters, agent_id)| {
                Action::SetThrusters(Thrusters {
                    thrusters,
                    agent_id,
                })
            })
            .boxed(),
        N::SetFins => (fins(), opt(ident()))
            .prop_map(|(fins, agent_id)| Action::SetFins(Fins { fins, agent_id }))
            .boxed(),
        N::Reset => opt(any::<u64>())
            .prop_map(|seed| Action::Reset(Reset { seed }))
            .boxed(),
        N::Pause => Just(Action::Pause(Empty {})).boxed(),
        N::Resume => Just(Action::Resume(Empty {})).boxed(),
        N::SetTimeScale => (1e-6f64..1e6)
            .prop_map(|time_scale| Action::SetTimeScale(SetTimeScale { time_scale }))
            .boxed(),
        N::SetScenario => (ident(), opt(any::<u64>()))
            .prop_map(|(scenario, seed)| Action::SetScenario(SetScenario { scenario, seed }))
            .boxed(),
        N::GenerateMap => (opt(ident()), opt(any::<u64>()))
            .prop_map(|(scenario, seed)| Action::GenerateMap(GenerateMap { scenario, seed }))
            .boxed(),
        N::GetMapInfo => Just(Action::GetMapInfo(Empty {})).boxed(),
        N::GetTerrainGrid => (
            opt(0.01f64..10.0),
            opt(finite()),
            opt(any::<bool>()),
            opt(any::<bool>()),
            opt(0.0f64..10.0),
        )
            .prop_map(|(c, y, s, d, i)| {
                Action::GetTerrainGrid(TerrainGridRequest {
                    cell_size: c,
                    auv_y: y,
                    include_static_obstacles: s,
                    include_dynamic_agents: d,
                    inflation_radius: i,
                })
            })
            .boxed(),
        N::SpawnObstacle => (
            opt(ident()),
            0..3u8,
            vector::<3>(),
            positive(),
            positive(),
            (positive(), positive(), positive()),
            opt(vector::<3>()),
        )
            .prop_map(|(id, kind, position, r, h, (sx, sy, sz), rotation)| {
                let mut o = SpawnObstacle {
                    id,
                    shape: ObstacleShape::Sphere,
                    position,
                    size: None,
                    radius: None,
                    height: None,
                    rotation,
                };
                match kind {
                    0 => o.radius = Some(r),
                    1 => {
                        o.shape = ObstacleShape::Box;
                        o.size = Some(Vector([sx, sy, sz]));
                    }
                    _ => {
                        o.shape = ObstacleShape::Cylinder;
                        o.radius = Some(r);
                        o.height = Some(h);
                    }
                }
                Action::SpawnObstacle(Box::new(o))
            })
            .boxed(),
        N::RemoveObstacle => ident()
            .prop_map(|id| Action::RemoveObstacle(ObjectId { id }))
            .boxed(),
        N::SpawnAgent => (
            ident(),
            opt(ident()),
            opt(vector::<3>()),
            opt(vector::<3>()),
            opt(vector::<3>()),
            opt(ident()),
            (opt(0.0f64..10.0), opt(0.01f64..10.0), opt(0.0f64..5.0)),
            json_map("x_"),
        )
            .prop_map(
                |(
                    agent_name,
                    agent_type,
                    location,
                    rotation,
                    velocity,
                    control_scheme,
                    (speed, size_m, dmin),
                    extra,
                )| {
                    Action::SpawnAgent(Box::new(SpawnAgent {
                        agent_name,
                        agent_type,
                        location,
                        rotation,
                        velocity,
                        control_scheme,
                        mode: None,
                        speed,
                        size_m,
                        depth_min: dmin,
                        depth_max: dmin.map(|d| d + 10.0),
                        extra,
                    }))
                },
            )
            .boxed(),
        N::MoveAgent => (ident(), vector::<3>(), opt(vector::<3>()))
            .prop_map(|(id, position, rotation)| {
                Action::MoveAgent(MoveAgent {
                    id,
                    position,
                    rotation,
                })
            })
            .boxed(),
        N::RemoveAgent => ident()
            .prop_map(|id| Action::RemoveAgent(ObjectId { id }))
            .boxed(),
        N::ClearAgents => Just(Action::ClearAgents(Empty {})).boxed(),
        N::GetAgents => Just(Action::GetAgents(Empty {})).boxed(),
        N::SetAgentVelocity => (ident(), vector::<3>())
            .prop_map(|(id, velocity)| Action::SetAgentVelocity(SetAgentVelocity { id, velocity }))
            .boxed(),
        N::SetNavPath => path()
            .prop_map(|path| Action::SetNavPath(NavPath { path }))
            .boxed(),
        N::SetWaypoint => (
            finite(),
            finite(),
            opt(finite()),
            opt(ident()),
            opt(Just("waypoint_pid".to_string())),
            opt(json_map("k_")),
        )
            .prop_map(
                |(world_x, world_z, depth, agent_id, control_scheme, controller)| {
                    Action::SetWaypoint(SetWaypoint {
                        world_x,
                        world_z,
                        depth,
                        agent_id,
                        control_scheme,
                        controller,
                    })
                },
            )
            .boxed(),
        N::SetPredTrajectory => path()
            .prop_map(|points| Action::SetPredTrajectory(PredTrajectory { points }))
            .boxed(),
        N::SetWaypoints => path()
            .prop_map(|waypoints| Action::SetWaypoints(Waypoints { waypoints }))
            .boxed(),
        N::ClearNav => Just(Action::ClearNav(Empty {})).boxed(),
        N::SetCurrent => vector()
            .prop_map(|velocity| Action::SetCurrent(SetCurrent { velocity }))
            .boxed(),
        N::SendAcousticMessage => (ident(), ident(), json_value())
            .prop_map(|(sender_id, receiver_id, payload)| {
                Action::SendAcousticMessage(AcousticMessage {
                    sender_id,
                    receiver_id,
                    payload,
                })
            })
            .boxed(),
        N::ConfigureAcousticComm => (
            opt(0.0f64..10.0),
            opt(positive()),
            opt(positive()),
            opt(0.0f64..=1.0),
            opt(any::<u64>()),
        )
            .prop_map(
                |(latency_s, bandwidth_bps, range_m, packet_drop_rate, seed)| {
                    Action::ConfigureAcousticComm(AcousticConfig {
                        latency_s,
                        bandwidth_bps,
                        range_m,
                        packet_drop_rate,
                        seed,
                    })
                },
            )
            .boxed(),
        N::ReadAcousticInbox => (ident(), opt(any::<bool>()))
            .prop_map(|(agent_id, clear)| {
                Action::ReadAcousticInbox(ReadAcousticInbox { agent_id, clear })
            })
            .boxed(),
        N::ExportDataset => (
            opt(ident()),
            opt(any::<bool>()),
            opt(any::<bool>()),
            opt(any::<bool>()),
        )
            .prop_map(|(export_dir, render_image, pack_dataset, rosbag2)| {
                Action::ExportDataset(ExportDataset {
                    export_dir,
                    render_image,
                    pack_dataset,
                    rosbag2,
                })
            })
            .boxed(),
        N::SaveSnapshotJson => opt(ident())
            .prop_map(|path| Action::SaveSnapshotJson(SaveSnapshot { path }))
            .boxed(),
        N::LoadSnapshot => ident()
            .prop_map(|path| Action::LoadSnapshot(LoadSnapshot { path }))
            .boxed(),
    }
}

fn any_action() -> impl Strategy<Value = Action> {
    prop::sample::select(ActionName::ALL).prop_flat_map(action_of)
}

fn request_id() -> impl Strategy<Value = Option<RequestId>> {
    opt(prop_oneof![
        "\\PC{0,16}".prop_map(RequestId::String),
        any::<u64>().prop_map(RequestId::from),
        any::<i64>().prop_map(|i| RequestId::Number(i.into())),
    ])
}

fn single_request() -> impl Strategy<Value = SingleRequest> {
    (request_id(), any_action())
        .prop_map(|(request_id, action)| SingleRequest { request_id, action })
}

fn any_request() -> impl Strategy<Value = Request> {
    prop_oneof![
        3 => single_request().prop_map(Request::Single),
        1 => (request_id(), prop::collection::vec(single_request(), 0..8)).prop_map(|(request_id, rs)| {
            Request::Batch(oceansim_protocol::BatchRequest {
                request_id,
                requests: rs.into_iter().map(oceansim_protocol::BatchChild::Valid).collect(),
            })
        }),
    ]
}

#[test]
fn every_action_round_trips_through_the_wire() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    for &name in ActionName::ALL {
        for _ in 0..16 {
            let action = action_of(name).new_tree(&mut runner).unwrap().current();
            let req = Request::Single(SingleRequest::new(action).with_id(format!("rt-{name}")));
            let line = req.to_line();
            assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
            let back = Request::decode(line.trim_end()).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(back, req, "{line}");
            // The wire form names the right type and action.
            let v: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(v["action"], name.as_str());
            assert_eq!(v["type"], name.request_type().as_str());
            assert_eq!(v["protocol_version"], 2);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn encode_then_decode_is_identity(req in any_request()) {
        let line = req.to_line();
        let back = Request::decode(line.trim_end());
        prop_assert_eq!(back, Ok(req));
    }

    #[test]
    fn responses_round_trip(id in request_id(), action in prop::sample::select(ActionName::ALL),
                            t in opt(finite()), data in json_value(), code in prop::sample::select(ErrorCode::ALL.to_vec())) {
        let ok = Response::ok(id.clone(), action, t, data);
        prop_assert_eq!(Response::from_line(&ok.to_line()), Ok(ok));
        let err = Response::error(id, Some(action.as_str().into()), t,
                                  &oceansim_protocol::ProtocolError::with_code(code, "m"));
        let v = err.to_value();
        prop_assert_eq!(&v["error_code"], code.as_str());
        prop_assert_eq!(&v["success"], false);
        prop_assert_eq!(Response::from_line(&err.to_line()), Ok(err));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let mut codec = NdjsonCodec::with_max_line_bytes(64);
        let mut buf = BytesMut::from(&bytes[..]);
        while let Some(item) = codec.decode(&mut buf).unwrap() {
            if let Ok(line) = item { let _ = Request::decode(&line); }
        }
        if let Some(Ok(line)) = codec.decode_eof(&mut buf).unwrap() { let _ = Request::decode(&line); }
        let _ = Request::decode(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_json_never_panics(v in json_value(), ty in prop::sample::select(vec!["command","sim_control","batch","x"]),
                                   action in prop::sample::select(ActionName::ALL)) {
        // Structure-aware: a plausible envelope around arbitrary data.
        let env = json!({"type": ty, "action": action.as_str(), "data": v.clone(), "requests": [v.clone()], "request_id": v});
        let _ = Request::from_value(env);
    }

    #[test]
    fn mutated_valid_requests_never_panic(req in single_request(), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let mut bytes = req.to_value().to_string().into_bytes();
        for (at, b) in flips { let i = at.index(bytes.len()); bytes[i] = b; }
        if let Ok(s) = std::str::from_utf8(&bytes) {
            if let Err(rej) = Request::decode(s) {
                // Whatever the failure, it maps to a documented code.
                prop_assert!(ErrorCode::ALL.contains(&rej.error.code()));
            }
        }
    }

    /// The streaming decoder yields exactly what a whole-input reference
    /// model yields, however the input is chunked.
    #[test]
    fn line_decoder_matches_model_under_any_chunking(
        input in prop::collection::vec(prop_oneof![
            8 => any::<u8>(), 3 => Just(b'\n'), 2 => Just(b'\r'), 2 => Just(b' '), 4 => Just(b'a')], 0..400),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        max in 1usize..40,
    ) {
        let expected = model(&input, max);
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
        points.sort_unstable();
        let mut codec = NdjsonCodec::with_max_line_bytes(max);
        let mut buf = BytesMut::new();
        let mut got = vec![];
        let mut start = 0;
        for p in points.into_iter().chain([input.len()]) {
            buf.extend_from_slice(&input[start..p]);
            start = p;
            while let Some(item) = codec.decode(&mut buf).unwrap() { got.push(item.map_err(|e| e.code())); }
        }
        while let Some(item) = codec.decode_eof(&mut buf).unwrap() { got.push(item.map_err(|e| e.code())); }
        prop_assert_eq!(got, expected);
        prop_assert!(buf.len() <= max + 1);
    }
}

/// Reference framing: split on LF; an over-long segment is one error; a
/// blank one is skipped; invalid UTF-8 is an error; otherwise the trimmed
/// text.
fn model(input: &[u8], max: usize) -> Vec<Result<String, ErrorCode>> {
    input
        .split(|b| *b == b'\n')
        .filter_map(|seg| {
            if seg.len() > max {
                return Some(Err(ErrorCode::InvalidMessage));
            }
            let t = seg.trim_ascii();
            if t.is_empty() {
                return None;
            }
            Some(
                std::str::from_utf8(t)
                    .map(str::to_owned)
                    .map_err(|_| ErrorCode::InvalidMessage),
            )
        })
        .collect()
}
