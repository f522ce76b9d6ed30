//! Each preset's line shape, the level directives, colour policy and
//! `warn_once!`, through a captured subscriber.

use oceansim_log::{warn_once, Ansi, LogConfig, LogFormat, MemoryWriter};

fn capture(config: &LogConfig, emit: impl FnOnce()) -> String {
    let buffer = MemoryWriter::default();
    let subscriber = config.clone().respect_env(false).subscriber(buffer.clone());
    tracing::subscriber::with_default(subscriber, emit);
    buffer.contents()
}

fn one_event() {
    tracing::info!(target: "oceansim_sim::sensors", sensor = "imu", rate_hz = 100.0, "sampling");
}

#[test]
fn every_preset_writes_the_event_and_only_json_is_json() {
    for format in LogFormat::ALL {
        let config = LogConfig::new("info").unwrap().format(format);
        let out = capture(&config, one_event);
        assert_eq!(out.lines().count(), 1, "{format}: {out:?}");
        assert!(out.contains("sampling"), "{format}: {out:?}");
        assert!(
            !out.contains('\u{1b}'),
            "{format}: colour codes in a non-terminal writer: {out:?}"
        );
        let parsed = serde_json::from_str::<serde_json::Value>(out.trim());
        match format {
            LogFormat::Json => {
                let v = parsed.expect("json preset writes JSON");
                assert_eq!(v["level"], "INFO");
                assert_eq!(v["target"], "oceansim_sim::sensors");
                assert_eq!(v["message"], "sampling");
                assert_eq!(v["sensor"], "imu");
                assert_eq!(v["rate_hz"], 100.0);
            }
            _ => assert!(parsed.is_err(), "{format}: {out:?}"),
        }
        match format {
            LogFormat::Simple => assert_eq!(out, " INFO sampling sensor=\"imu\" rate_hz=100.0\n"),
            LogFormat::Detailed => {
                assert!(out.contains("presets.rs"), "file name: {out:?}");
                assert!(out.contains("oceansim_sim::sensors"), "{out:?}");
            }
            LogFormat::Compact | LogFormat::Standard => {
                assert!(out.contains("oceansim_sim::sensors"), "target: {out:?}");
                assert!(!out.contains("presets.rs"), "{out:?}");
            }
            LogFormat::Json => {}
        }
    }
}

#[test]
fn forced_colour_writes_escape_codes() {
    let config = LogConfig::new("info").unwrap().ansi(Ansi::Always);
    let out = capture(&config, one_event);
    assert!(out.contains('\u{1b}'), "{out:?}");
}

#[test]
fn levels_apply_per_crate_and_to_third_parties() {
    let config = LogConfig::new("info")
        .unwrap()
        .format(LogFormat::Simple)
        .crate_level("oceansim_sim::sensors", "warn")
        .unwrap()
        .crate_level("my_controller", "debug")
        .unwrap();
    let out = capture(&config, || {
        tracing::info!(target: "oceansim_sim::sensors", "hidden: overridden to warn");
        tracing::warn!(target: "oceansim_sim::sensors", "shown: a sensors warning");
        tracing::info!(target: "oceansim_sim::dispatch", "shown: the crate level");
        tracing::debug!(target: "oceansim_server", "hidden: below info");
        tracing::debug!(target: "my_controller", "shown: the user's crate at debug");
        tracing::info!(target: "hyper", "hidden: third party below warn");
        tracing::warn!(target: "hyper", "shown: third-party warning");
    });
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines.iter().all(|l| l.contains("shown")), "{out}");
    let silent = LogConfig::new("info").unwrap().third_party("off").unwrap();
    let out = capture(&silent, || tracing::error!(target: "hyper", "dropped"));
    assert_eq!(out, "");
}

#[test]
fn bad_names_are_rejected_with_codes() {
    assert_eq!(
        LogConfig::new("loud").unwrap_err().code(),
        "unknown_log_level"
    );
    assert_eq!(
        "fancy".parse::<LogFormat>().unwrap_err().code(),
        "unknown_log_format"
    );
    let err = LogConfig::new("info")
        .unwrap()
        .crate_level("bad target=trace", "info")
        .unwrap_err();
    assert_eq!(err.code(), "invalid_log_target");
    assert_eq!("JSON".parse::<LogFormat>().unwrap(), LogFormat::Json);
}

#[test]
fn warn_once_logs_the_first_time_only_with_the_callers_target() {
    let config = LogConfig::new("info").unwrap().format(LogFormat::Json);
    let out = capture(&config, || {
        for _ in 0..3 {
            warn_once!("presets-test-key", "profile {} derives its limits", "x");
        }
        warn_once!("presets-test-other", "another key");
    });
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0]["message"], "profile x derives its limits");
    assert_eq!(lines[0]["level"], "WARN");
    assert_eq!(lines[0]["target"], "presets");
}
