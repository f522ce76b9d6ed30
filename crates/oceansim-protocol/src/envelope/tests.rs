use super::*;
use crate::payload::*;
use serde_json::json;

fn code_of(line: &str) -> ErrorCode {
    Request::decode(line).unwrap_err().error.code()
}

#[test]
fn decodes_the_spec_wire_example() {
    let r = Request::decode(
        r#"{"type":"command","protocol_version":2,"request_id":"run-001","action":"get_state"}"#,
    )
    .unwrap();
    assert_eq!(
        r,
        Request::Single(
            SingleRequest::new(Action::GetState(GetState::default())).with_id("run-001")
        )
    );
}

#[test]
fn sim_control_parameters_may_sit_at_top_level() {
    let r = Request::decode(r#"{"type":"sim_control","action":"set_time_scale","time_scale":2}"#)
        .unwrap();
    assert_eq!(
        r,
        Request::Single(SingleRequest::new(Action::SetTimeScale(SetTimeScale {
            time_scale: 2.0
        })))
    );
    // data wins over the top level.
    let r = Request::decode(
        r#"{"type":"sim_control","action":"set_time_scale","time_scale":2,"data":{"time_scale":3}}"#,
    )
    .unwrap();
    let Request::Single(SingleRequest {
        action: Action::SetTimeScale(s),
        ..
    }) = r
    else {
        panic!()
    };
    assert_eq!(s.time_scale, 3.0);
}

#[test]
fn error_codes_for_bad_envelopes() {
    assert_eq!(code_of("not json"), ErrorCode::InvalidMessage);
    assert_eq!(code_of("[1,2]"), ErrorCode::InvalidMessage);
    assert_eq!(
        code_of(r#"{"action":"get_state"}"#),
        ErrorCode::InvalidMessage
    );
    assert_eq!(
        code_of(r#"{"type":"telepathy","action":"x"}"#),
        ErrorCode::UnknownType
    );
    assert_eq!(
        code_of(r#"{"type":"command","action":"fly"}"#),
        ErrorCode::UnknownAction
    );
    assert_eq!(
        code_of(r#"{"type":"command","action":"pause"}"#),
        ErrorCode::UnknownAction
    );
    assert_eq!(
        code_of(r#"{"type":"sim_control","action":"get_state"}"#),
        ErrorCode::UnknownAction
    );
    assert_eq!(code_of(r#"{"type":"command"}"#), ErrorCode::InvalidMessage);
    assert_eq!(
        code_of(r#"{"type":"command","action":"get_state","protocol_version":1}"#),
        ErrorCode::InvalidMessage
    );
    assert_eq!(
        code_of(r#"{"type":"command","action":"set_force","data":[1,2,3]}"#),
        ErrorCode::InvalidMessage
    );
    assert_eq!(
        code_of(r#"{"type":"command","action":"set_force","data":{"force":[1,2]}}"#),
        ErrorCode::InvalidActionShape
    );
    assert_eq!(
        code_of(r#"{"type":"command","action":"get_state","request_id":[1]}"#),
        ErrorCode::InvalidMessage
    );
}

#[test]
fn rejections_keep_request_id_and_action() {
    let rej = Request::decode(
        r#"{"type":"command","request_id":41,"action":"set_force","data":{"force":"x"}}"#,
    )
    .unwrap_err();
    assert_eq!(rej.request_id, Some(RequestId::from(41)));
    assert_eq!(rej.action.as_deref(), Some("set_force"));
    let resp = rej.to_response(Some(1.5)).to_value();
    assert_eq!(resp["request_id"], json!(41));
    assert_eq!(resp["error_code"], "invalid_action_shape");
    assert_eq!(resp["status"], "error");
    assert_eq!(resp["success"], false);
    assert_eq!(resp["protocol_version"], 2);
}

#[test]
fn request_ids_are_echoed_exactly() {
    for id in [r#""abc""#, "7", "-3", "18446744073709551615", "1.5"] {
        let line = format!(r#"{{"type":"command","action":"get_state","request_id":{id}}}"#);
        let r = Request::decode(&line).unwrap();
        let resp = Response::ok(
            r.request_id().cloned(),
            ActionName::GetState,
            None,
            json!({}),
        );
        let echoed = resp.to_value()["request_id"].to_string();
        assert_eq!(echoed, id);
    }
}

fn batch_of(n: usize) -> String {
    let child = r#"{"type":"command","action":"get_state"}"#;
    format!(
        r#"{{"type":"batch","request_id":"b","requests":[{}]}}"#,
        vec![child; n].join(",")
    )
}

#[test]
fn batch_limit_is_64() {
    let Request::Batch(b) = Request::decode(&batch_of(64)).unwrap() else {
        panic!()
    };
    assert_eq!(b.requests.len(), 64);
    let rej = Request::decode(&batch_of(65)).unwrap_err();
    assert_eq!(rej.error.code(), ErrorCode::BatchLimit);
    assert_eq!(rej.request_id, Some(RequestId::from("b")));
}

#[test]
fn batch_children_fail_independently_and_in_order() {
    let line = r#"{"type":"batch","request_id":9,"requests":[
        {"type":"command","action":"get_state","request_id":"a"},
        {"type":"command","action":"nope","request_id":"b"},
        {"type":"batch","requests":[],"request_id":"c"},
        {"type":"sim_control","action":"pause","request_id":"d"}
    ]}"#;
    let req = Request::decode(line).unwrap();
    let mut seen = vec![];
    let resp = req.respond(|r| {
        seen.push(r.action.name());
        let data = Data::typed(json!({}));
        Reply::ok(
            ResponseType::Response,
            r.request_id,
            r.action.name(),
            Some(0.0),
            data,
        )
    });
    assert_eq!(seen, [ActionName::GetState, ActionName::Pause]);
    let v = resp.to_value();
    assert_eq!(v["request_id"], 9);
    assert_eq!(v["data"]["count"], 4);
    let rs = v["data"]["responses"].as_array().unwrap();
    let ids: Vec<_> = rs.iter().map(|r| r["request_id"].clone()).collect();
    assert_eq!(ids, [json!("a"), json!("b"), json!("c"), json!("d")]);
    assert_eq!(rs[1]["error_code"], "unknown_action");
    assert_eq!(rs[2]["error_code"], "invalid_message");
    assert!(rs[2]["message"].as_str().unwrap().contains("nested"));
    assert_eq!(rs[3]["success"], true);
}

#[test]
fn responses_carry_status_and_success() {
    let ok = Response::state(
        Some("x".into()),
        ActionName::GetState,
        2.5,
        json!({"depth": 1}),
    );
    let v = ok.to_value();
    assert_eq!(v["type"], "state");
    assert_eq!(v["status"], "ok");
    assert_eq!(v["success"], true);
    assert_eq!(v["sim_time"], 2.5);
    assert!(v.get("error_code").is_none());
    let back = Response::from_line(&ok.to_line()).unwrap();
    assert_eq!(back, ok);
}

#[test]
fn rendered_data_is_written_verbatim() {
    let text = r#"{"sensors":{"a":[1,2]},"x":"\"data\":null"}"#;
    let raw = Reply::ok(
        ResponseType::State,
        Some("k".into()),
        ActionName::GetState,
        Some(1.5),
        Data::Rendered(Rendered::Whole(text.into())),
    );
    assert!(raw.to_line().contains(text));
    let v = raw.to_value();
    assert_eq!(v["data"]["sensors"]["a"], json!([1, 2]));
    assert_eq!(v["data"]["x"], "\"data\":null");
    assert_eq!(v["request_id"], "k");
    assert_eq!(v["type"], "state");
    let plain = Response::state(
        Some("k".into()),
        ActionName::GetState,
        1.5,
        v["data"].clone(),
    );
    assert_eq!(Response::from_line(&raw.to_line()).unwrap(), plain);
}

#[test]
fn a_typed_state_carries_its_rendered_payloads_as_its_sensors_map() {
    #[derive(serde::Serialize)]
    struct Head {
        sim_time: f64,
        note: &'static str,
        sensors: (),
    }
    let head = || Head {
        sim_time: 2.5,
        note: "null}",
        sensors: (),
    };
    let payloads: RenderedPayloads = vec![
        ("imu".into(), r#"{"x":[1,2]}"#.into()),
        ("d\"q\u{1}".into(), "null".into()),
    ];
    let state = Rendered::with_sensors(head(), payloads.clone());
    let mut out = Vec::new();
    state.write(&mut out);
    assert_eq!(out.len(), state.len(), "the budget counts what is written");
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["note"], "null}");
    assert_eq!(v["sensors"]["imu"]["x"], json!([1, 2]));
    assert_eq!(v["sensors"]["d\"q\u{1}"], Value::Null);
    assert_eq!(v["sensors"].as_object().unwrap().len(), 2);
    // No payloads: an empty map. Kept as text: the same bytes.
    let empty = Rendered::with_sensors(head(), Vec::new());
    let text = empty.into_text();
    assert!(text.ends_with(r#""sensors":{}}"#), "{text}");
    let again = Rendered::with_sensors(head(), payloads).into_text();
    assert_eq!(again.as_bytes(), &out[..]);
}
