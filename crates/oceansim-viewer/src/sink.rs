//! An ECS engine's entities on the page: [`Viewer::engine_sink`].

use crate::{Viewer, DEFAULT_MAX_FPS};
use oceansim_ecs::loggers::{ColumnView, Frame};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// How an engine's entities appear on the page.
#[derive(Debug, Clone)]
pub struct SwarmView {
    /// The position component: 2 or 3 values per entity (m).
    pub position: String,
    /// Positions are north, east, down (Fossen fleets) rather than east,
    /// north, up.
    pub ned: bool,
    /// The heading component, if any: one angle per entity (rad),
    /// counter-clockwise from east (a unicycle's θ); with `ned`, a yaw ψ
    /// clockwise from north.
    pub heading: Option<String>,
    /// The map drawn around them `[x_min, x_max, y_min, y_max]` (m, east
    /// and north); by default the first frame's extent with a margin.
    pub bounds: Option<[f64; 4]>,
    /// Most frames a second sent (wall time).
    pub max_fps: f64,
    /// Simulated seconds per wall second the sink holds the run to (so a
    /// run that would end in a blink can be watched); `None` runs free.
    pub pace: Option<f64>,
    /// The page's title.
    pub title: String,
    /// Who heard whom, if the run has an acoustic channel: per link
    /// `[sender, receiver, sent_at, heard_at]` (entity indices, s), drawn as
    /// fading arrows (e.g. `oceansim_swarm::fleet::heard_links`).
    pub links: Option<LinkFn>,
}

/// Reads a frame's acoustic links: `[sender, receiver, sent_at, heard_at]`.
pub type LinkFn = fn(&Frame<'_>) -> Vec<[f64; 4]>;

/// Most links a frame carries (the newest kept).
pub const MAX_FRAME_LINKS: usize = 4096;

impl Default for SwarmView {
    fn default() -> Self {
        SwarmView {
            position: "p".into(),
            ned: false,
            heading: None,
            bounds: None,
            max_fps: DEFAULT_MAX_FPS,
            pace: None,
            title: "swarm".into(),
            links: None,
        }
    }
}

impl SwarmView {
    /// Positions from `component`.
    pub fn position(mut self, component: impl Into<String>) -> Self {
        self.position = component.into();
        self
    }
    /// Headings from `component` (see [`SwarmView::heading`]).
    pub fn heading(mut self, component: impl Into<String>) -> Self {
        self.heading = Some(component.into());
        self
    }
    /// Positions (and yaw) in NED.
    pub fn ned(mut self) -> Self {
        self.ned = true;
        self
    }
    /// Holds the run to `sim_seconds_per_wall_second`.
    pub fn pace(mut self, sim_seconds_per_wall_second: f64) -> Self {
        self.pace = (sim_seconds_per_wall_second.is_finite() && sim_seconds_per_wall_second > 0.0)
            .then_some(sim_seconds_per_wall_second);
        self
    }
    /// Sets the page title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }
    /// Draws the acoustic links `links` reads from each frame.
    pub fn links(mut self, links: LinkFn) -> Self {
        self.links = Some(links);
        self
    }
    /// Sets the map bounds.
    pub fn bounds(mut self, bounds: [f64; 4]) -> Self {
        self.bounds = Some(bounds);
        self
    }
}

/// Per entity: east, north, up (m) and compass heading (deg), if any.
fn read_entities(view: &SwarmView, frame: &Frame<'_>) -> (Vec<[f64; 3]>, Option<Vec<f64>>) {
    let per = |c: &ColumnView<'_>| c.dim.iter().product::<usize>().max(1);
    let Some(p) = frame.get(&view.position) else {
        return (Vec::new(), None);
    };
    let k = per(p);
    let n = p.data.len() / k;
    let at = |i: usize, j: usize| {
        if j < k {
            p.data.get_f64(i * k + j)
        } else {
            0.0
        }
    };
    let points = (0..n)
        .map(|i| {
            let (a, b, c) = (at(i, 0), at(i, 1), at(i, 2));
            if view.ned {
                [b, a, -c]
            } else {
                [a, b, c]
            }
        })
        .collect();
    let heading = view.heading.as_ref().and_then(|h| frame.get(h)).map(|h| {
        let k = per(h);
        (0..n)
            .map(|i| {
                let a = if i * k < h.data.len() {
                    h.data.get_f64(i * k)
                } else {
                    0.0
                };
                let deg = if view.ned {
                    a.to_degrees()
                } else {
                    90.0 - a.to_degrees()
                };
                deg.rem_euclid(360.0)
            })
            .collect()
    });
    (points, heading)
}

/// The first frame's extent with a margin, square enough to read.
fn fit_bounds(points: &[[f64; 3]]) -> [f64; 4] {
    let mut b = [
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for p in points
        .iter()
        .filter(|p| p[0].is_finite() && p[1].is_finite())
    {
        b = [
            b[0].min(p[0]),
            b[1].max(p[0]),
            b[2].min(p[1]),
            b[3].max(p[1]),
        ];
    }
    if !b[0].is_finite() {
        return [-10.0, 10.0, -10.0, 10.0];
    }
    let margin = (0.2 * (b[1] - b[0]).max(b[3] - b[2])).max(5.0);
    [b[0] - margin, b[1] + margin, b[2] - margin, b[3] + margin]
}

/// Writes `{"type":"frame","t":..,"points":{"x":[..],"y":[..],"z":[..],"h":[..]},
/// "links":[[from,to,sent,heard],..]}` with millimetre positions,
/// tenth-of-a-degree headings and millisecond times.
fn frame_json(t: f64, points: &[[f64; 3]], heading: Option<&[f64]>, links: &[[f64; 4]]) -> String {
    let mut s = String::with_capacity(32 + points.len() * 28);
    let _ = write!(s, r#"{{"type":"frame","t":{},"points":{{"#, finite(t));
    for (axis, name) in ["x", "y", "z"].iter().enumerate() {
        let _ = write!(s, r#""{name}":["#);
        for (i, p) in points.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{}", finite((p[axis] * 1000.0).round() / 1000.0));
        }
        s.push_str("],");
    }
    s.push_str(r#""h":"#);
    match heading {
        Some(h) => {
            s.push('[');
            for (i, v) in h.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "{}", finite((v * 10.0).round() / 10.0));
            }
            s.push(']');
        }
        None => s.push_str("null"),
    }
    s.push_str(r#"},"links":["#);
    let n = points.len() as f64;
    let valid = |l: &&[f64; 4]| {
        l.iter().all(|v| v.is_finite()) && (0.0..n).contains(&l[0]) && (0.0..n).contains(&l[1])
    };
    let mut kept: Vec<&[f64; 4]> = links.iter().filter(valid).collect();
    // Past the bound, the newest heard are kept.
    kept.sort_by(|a, b| a[3].total_cmp(&b[3]));
    for (i, l) in kept[kept.len().saturating_sub(MAX_FRAME_LINKS)..]
        .iter()
        .enumerate()
    {
        if i > 0 {
            s.push(',');
        }
        let ms = |v: f64| (v * 1000.0).round() / 1000.0;
        let _ = write!(
            s,
            "[{},{},{},{}]",
            l[0] as u64,
            l[1] as u64,
            ms(l[2]),
            ms(l[3])
        );
    }
    s.push_str("]}");
    s
}

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

impl Viewer {
    /// A sink for [`oceansim_ecs::Engine::with_sink`] that streams the
    /// engine's entities to this viewer: positions (and headings) at the
    /// log cadence, at most `view.max_fps` a second of wall time; the first
    /// frame also publishes the scene (title and bounds); while no page is
    /// connected no frame is built. With `view.pace`
    /// it sleeps to hold the run to that many simulated seconds per wall
    /// second.
    pub fn engine_sink(&self, view: SwarmView) -> impl FnMut(f64, &Frame<'_>) + 'static {
        let scene = self.scene.clone();
        let frames = self.frame.clone();
        let shared = self.shared.clone();
        let period = Duration::from_secs_f64(1.0 / view.max_fps.clamp(0.1, 1000.0));
        // The next publication is due one period after the previous one
        // was due (not after it happened), so a 40 Hz source is sent at
        // 30 Hz, not every other frame.
        let mut due: Option<Instant> = None;
        let mut start: Option<(Instant, f64)> = None;
        move |t, frame| {
            let now = Instant::now();
            let (wall0, t0) = *start.get_or_insert((now, t));
            if let Some(rate) = view.pace {
                let due = wall0 + Duration::from_secs_f64(((t - t0) / rate).clamp(0.0, 1e9));
                if due > now {
                    std::thread::sleep(due - now);
                }
            }
            let now = Instant::now();
            let first = due.is_none();
            // No page, no frames (the scene goes out once, for late pages).
            let watched = shared.clients.load(std::sync::atomic::Ordering::Relaxed) > 0;
            if due.is_some_and(|d| now < d) || (!first && !watched) {
                return;
            }
            let next = due.map_or(now + period, |d| d + period);
            due = Some(if next + period < now { now } else { next });
            let (points, heading) = read_entities(&view, frame);
            if first {
                let bounds = view.bounds.unwrap_or_else(|| fit_bounds(&points));
                let msg = oceansim_protocol::view::Scene {
                    title: view.title.clone(),
                    scenario: None,
                    seed: None,
                    bounds,
                    seabed: None,
                    obstacles: Vec::new(),
                    sensors: None,
                    entities: Some(points.len()),
                };
                let text = oceansim_protocol::view::to_text(&msg);
                scene.send_replace(Some(text.into()));
            }
            let links = view.links.map(|f| f(frame)).unwrap_or_default();
            frames.send_replace(Some(
                frame_json(t, &points, heading.as_deref(), &links).into(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_json_with_one_value_per_entity() {
        let s = frame_json(
            1.5,
            &[[1.0, 2.0, 0.0], [3.00049, -4.0, 1.0]],
            Some(&[90.0, 359.96]),
            &[
                [1.0, 0.0, 0.5, 0.9001],
                [5.0, 0.0, 0.1, 0.2],
                [0.0, 1.0, f64::NAN, 1.0],
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        let f = |k: &str| -> Vec<f64> {
            v["points"][k]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        assert_eq!(f("x"), [1.0, 3.0]);
        assert_eq!(f("y"), [2.0, -4.0]);
        assert_eq!(f("h"), [90.0, 360.0]);
        // Links to entities that do not exist, or with a bad time, are left out.
        assert_eq!(v["links"], serde_json::json!([[1, 0, 0.5, 0.9]]));
        let none = frame_json(f64::NAN, &[], None, &[]);
        let v: serde_json::Value = serde_json::from_str(&none).unwrap();
        assert_eq!(v["t"].as_f64(), Some(0.0));
        assert!(v["points"]["h"].is_null());
    }

    #[test]
    fn bounds_hold_every_point_with_a_margin() {
        let b = fit_bounds(&[[0.0, 0.0, 0.0], [100.0, 50.0, 0.0]]);
        assert!(b[0] < 0.0 && b[1] > 100.0 && b[2] < 0.0 && b[3] > 50.0);
        assert_eq!(fit_bounds(&[]), [-10.0, 10.0, -10.0, 10.0]);
    }
}
