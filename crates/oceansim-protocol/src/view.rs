//! The live view's messages: what a browser page draws (WebSocket, one JSON
//! object a message), the same whether they come from a running simulation
//! or a recorded run played back. Each message carries its `type`.
//!
//! Conventions: positions in the user frame (x east, y north, z up, m),
//! headings in compass degrees (0 = north, clockwise), times in simulated
//! seconds; producers round positions to millimetres (the page draws no
//! finer, and short numbers keep frames small).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `scene`: the map a page draws under the agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "scene")]
pub struct Scene {
    /// Shown above the map.
    pub title: String,
    /// The scenario's id (a live run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The terrain's seed (a live run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `[x_min, x_max, y_min, y_max]` (m).
    pub bounds: [f64; 4],
    /// The seabed on a grid; `null` when unknown (a run whose scenario no
    /// longer loads).
    pub seabed: Option<Seabed>,
    /// Obstacle footprints.
    pub obstacles: Vec<Obstacle>,
    /// The sensors whose series a page may show in panels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensors: Option<Vec<PanelEntry>>,
    /// How many entities a swarm's frames carry (a swarm sink's scene).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entities: Option<usize>,
}

/// The seabed's height on a grid, row 0 at the north edge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Seabed {
    /// Samples along x.
    pub cols: usize,
    /// Samples along y.
    pub rows: usize,
    /// Heights (m, up), `cols × rows`, row by row.
    pub z: Vec<f64>,
    /// The lowest height of the terrain (m).
    pub min: f64,
    /// The highest (m).
    pub max: f64,
}

/// An obstacle seen from above: a circle (`radius`) or a convex polygon,
/// and its vertical extent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Obstacle {
    /// Its id (`null` when a recorded run did not keep one).
    pub id: Option<String>,
    /// `box`, `sphere` or `cylinder`.
    pub shape: String,
    /// Centre (m).
    pub center: [f64; 3],
    /// `[z_min, z_max]` (m).
    pub z: [f64; 2],
    /// The circle's radius (m), for round footprints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// The outline, counter-clockwise `[x, y]` points (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polygon: Option<Vec<[f64; 2]>>,
}

/// One entry of a scene's `sensors`: a series a page can show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelEntry {
    /// `<agent>/<sensor>`.
    pub key: String,
    /// Agent name.
    pub agent: String,
    /// Sensor name.
    pub sensor: String,
    /// Sensor family (`imaging_sonar`, `camera`, ...).
    pub kind: String,
    /// The frame its data is in (`<agent>/<sensor>`; points are in
    /// `parent`).
    pub frame: String,
    /// `<agent>/base_link`.
    pub parent: String,
    /// Sampling rate (Hz).
    pub rate_hz: f64,
    /// What its numbers mean.
    pub units: String,
}

/// `overlays`: the navigation overlays (user frame; planar points are
/// `[x, y]`, spatial ones `[x, y, z]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "overlays")]
pub struct Overlays {
    /// The four overlays.
    pub overlays: OverlaySet,
}

/// The navigation overlays of [`Overlays`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OverlaySet {
    /// A planned path.
    pub nav_path: Vec<Vec<f64>>,
    /// The waypoint `[x, y, z]`, if one is set.
    pub waypoint: Option<[f64; 3]>,
    /// A waypoint list.
    pub waypoints: Vec<Vec<f64>>,
    /// A predicted trajectory.
    pub pred_trajectory: Vec<Vec<f64>>,
}

/// `frame`: the clock and every agent at one recorded frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "frame")]
pub struct Frame {
    /// Simulated time (s).
    pub t: f64,
    /// The recorded frame's index.
    pub frame: u64,
    /// Whether the clock is paused.
    pub paused: bool,
    /// The asked multiple of real time.
    pub time_scale: f64,
    /// The multiple of real time kept lately (`null` while paused).
    pub achieved_time_scale: Option<f64>,
    /// Every agent, the main AUV first.
    pub agents: Vec<Agent>,
    /// Acoustic deliveries heard lately.
    pub acoustic: Vec<AcousticLink>,
}

/// One agent in a frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    /// Its name.
    pub name: String,
    /// `vehicle` or `proxy`.
    pub kind: String,
    /// Whether it is the main AUV.
    pub main: bool,
    /// Position (m).
    pub p: [f64; 3],
    /// Heading (deg).
    pub heading_deg: f64,
    /// Speed (m/s).
    pub speed: f64,
    /// Footprint length (m; a live run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
    /// Footprint width (m; a live run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// The seabed's height under it (m), `null` off the map (a live run:
    /// absent in a replay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seabed_z: Option<Option<f64>>,
    /// Its last command.
    pub command: Option<AgentCommand>,
}

/// An agent's last command, as logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentCommand {
    /// The protocol action.
    pub action: String,
    /// Its data.
    pub data: Value,
    /// When it was accepted (s).
    pub t: f64,
}

/// One acoustic delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcousticLink {
    /// Sender's name.
    pub from: String,
    /// Receiver's name.
    pub to: String,
    /// When it was sent (s).
    pub sent: f64,
    /// When it was heard (s).
    pub heard: f64,
}

/// `replay`: a recorded run whole, for the page's time slider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "replay")]
pub struct Replay {
    /// The scene's title.
    pub title: String,
    /// The run's scene.
    pub scene: Scene,
    /// Every how many recorded frames one is sent.
    pub stride: usize,
    /// The frames sent.
    pub frames: Vec<ReplayFrame>,
}

/// One frame of a [`Replay`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayFrame {
    /// Simulated time (s).
    pub t: f64,
    /// The recorded frame's index.
    pub frame: u64,
    /// Every agent, the main AUV first.
    pub agents: Vec<Agent>,
}

/// `hello`: the first message a page is sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "hello")]
pub struct Hello {
    /// `live`, `replay` or `swarm`.
    pub mode: String,
    /// The page's title.
    pub title: String,
    /// Whether the page may send requests (pause, resume, time scale).
    pub controls: bool,
    /// The frame rate the publisher keeps to (`null`: none, a replay).
    pub max_fps: Option<f64>,
    /// The viewer's version.
    pub version: String,
}

/// `reply` to a page's message that was not sent on: why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "reply")]
pub struct Refusal {
    /// The page's `id` for its request, as it sent it (`null` when none
    /// could be read).
    pub id: Value,
    /// Why the message was refused.
    pub error: String,
}

/// `GET /health`: what the viewer has served.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// `live`, `replay` or `swarm`.
    pub mode: String,
    /// Pages connected now.
    pub clients: u64,
    /// Pages connected since the start.
    pub connections: u64,
    /// Pages turned away (too many at once).
    pub refused_connections: u64,
    /// Frames sent to pages.
    pub frames_sent: u64,
    /// Sensor messages sent to pages.
    pub sensor_messages_sent: u64,
    /// Sensor panels shown on some page now.
    pub panels_shown: u64,
}

/// `message` as its JSON text (plain data: serialising it cannot fail).
pub fn to_text<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).unwrap_or_else(|_| "{}".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_carry_their_type_and_read_back() {
        let scene = Scene {
            title: "t".into(),
            scenario: None,
            seed: Some(3),
            bounds: [0.0, 1.0, 0.0, 1.0],
            seabed: None,
            obstacles: vec![],
            sensors: None,
            entities: None,
        };
        let text = to_text(&scene);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["type"], "scene");
        assert!(v["seabed"].is_null() && v.get("scenario").is_none());
        assert_eq!(serde_json::from_str::<Scene>(&text).unwrap(), scene);
        let agent = Agent {
            name: "a".into(),
            kind: "proxy".into(),
            main: false,
            p: [0.0; 3],
            heading_deg: 0.0,
            speed: 0.0,
            length: None,
            width: None,
            seabed_z: Some(None),
            command: None,
        };
        let v: Value = serde_json::to_value(&agent).unwrap();
        assert!(v["seabed_z"].is_null() && v.get("length").is_none());
    }
}
