//! The simulator on a [`Viewer`]: the scene and, at the log cadence, a
//! frame of every agent, published from the simulation's own thread
//! without waiting for any page; the pages' requests are answered like a
//! client's.

use crate::host::Host;
use oceansim_protocol::view;
use oceansim_protocol::{Reply, Request};
use oceansim_sim::Sample;
use oceansim_sim::Session;
use oceansim_viewer::{PageRequest, Viewer};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// Publishes the scene when it changes and the newest frame when it
/// differs from the last one sent, at most the viewer's `max_fps` a second,
/// and only while a page is connected. Building a frame reads a few
/// agents (tens of microseconds); it never waits for a page. The sensors
/// some page shows a panel of are asked for as a client's `get_sensors`
/// asks (so an on-demand camera or sonar renders while, and only while, a
/// panel shows it) and their new samples published.
pub(crate) async fn publish(
    world: Rc<Host>,
    viewer: Rc<Viewer>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / viewer.max_fps()));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut scene_rev: Option<u64> = None;
    let mut overlays_rev: Option<u64> = None;
    // What the last frame was built from: the recorded frame (held, and
    // compared by pointer) and the clock's state. Unchanged, nothing is
    // built.
    let mut last_frame: Option<(Arc<Sample>, bool, u64)> = None;
    // Per panel key, the sequence number last published (and the world's
    // generation it belongs to: a reset starts sequences again).
    let mut published: BTreeMap<String, u64> = BTreeMap::new();
    let mut generation: Option<u64> = None;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        if viewer.clients() == 0 {
            // A page that connects later is sent everything afresh.
            scene_rev = None;
            overlays_rev = None;
            last_frame = None;
            continue;
        }
        let Ok(sim) = world.sim.try_borrow() else {
            continue;
        };
        let rev = sim.scene_revision();
        if scene_rev != Some(rev) {
            viewer.publish_scene(view::to_text(&sim.view_scene()));
            scene_rev = Some(rev);
            last_frame = None;
        }
        // Overlays (possibly thousands of points) travel only when they
        // changed, in a slot of their own that late pages are sent too.
        let orev = sim.overlays_revision();
        if overlays_rev != Some(orev) {
            viewer.publish_overlays(view::to_text(&sim.view_overlays()));
            overlays_rev = Some(orev);
        }
        // After the scene: a page sees a new scene before its samples.
        drop(sim);
        publish_sensors(&world, &viewer, &mut published, &mut generation);
        let Ok(sim) = world.sim.try_borrow() else {
            continue;
        };
        let Some(latest) = sim.latest_frame() else {
            continue;
        };
        let clock = (sim.paused(), sim.time_scale().to_bits());
        let same = last_frame
            .as_ref()
            .is_some_and(|(f, p, s)| Arc::ptr_eq(f, &latest) && (*p, *s) == clock);
        if !same {
            if let Some(frame) = sim.view_frame() {
                viewer.publish_frame(view::to_text(&frame));
            }
            last_frame = Some((latest, clock.0, clock.1));
        }
    }
}

/// Asks for the sensors the pages show and publishes their samples that
/// are new since the last look.
fn publish_sensors(
    world: &Host,
    viewer: &Viewer,
    published: &mut BTreeMap<String, u64>,
    generation: &mut Option<u64>,
) {
    let demand = viewer.sensor_demand();
    published.retain(|k, _| demand.contains(k));
    if demand.is_empty() {
        return;
    }
    let Ok(mut sim) = world.sim.try_borrow_mut() else {
        return;
    };
    if *generation != Some(sim.generation()) {
        *generation = Some(sim.generation());
        published.clear();
        viewer.clear_sensors();
    }
    sim.view_demand_sensors(&demand);
    let mut updates = Vec::new();
    for (panel, sample) in sim.view_latest_samples(&demand) {
        let key = panel.key();
        if published.get(&key) == Some(&sample.sequence) {
            continue;
        }
        published.insert(key.clone(), sample.sequence);
        let msg: Arc<str> = oceansim_sim::panels::panel_message(&panel, &sample).into();
        updates.push((key, sample.sequence, msg));
    }
    viewer.publish_sensors(updates);
}

/// Answers the pages' requests in order, in one session of their own, on
/// the same path as a TCP client's lines.
pub(crate) async fn answer_pages(
    world: Rc<Host>,
    mut requests: tokio::sync::mpsc::Receiver<PageRequest>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut session = Session::new();
    loop {
        let req = tokio::select! {
            r = requests.recv() => r,
            _ = stop.changed() => None,
        };
        let Some(PageRequest { line, reply }) = req else {
            return;
        };
        let resp: Reply = match Request::decode(&line) {
            Ok(req) => world.answer(&mut session, req).await,
            Err(rejected) => rejected.to_reply(None),
        };
        let mut buf = Vec::new();
        resp.write_json(&mut buf);
        let _ = reply.send(String::from_utf8_lossy(&buf).into_owned());
    }
}
