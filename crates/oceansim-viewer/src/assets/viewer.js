// oceansim viewer: draws what the viewer's WebSocket sends (docs/viewer.md).
// Frames: user frame, x east, y north, z up (m); headings compass degrees.
"use strict";

const $ = (id) => document.getElementById(id);
const TRAIL_MAX = 5000;
const COLORS = ["#f1c40f", "#e67e22", "#2ecc71", "#9b59b6", "#e74c3c", "#ecf0f1", "#3498db"];

// What tests and curious users can read: window.oceansimViewer.
const V = (window.oceansimViewer = {
  mode: null, connected: false, controls: false, scene: null, frame: null, overlays: null,
  frames: 0, draws: 0, fps: 0, maxFps: null, simTime: null, paused: null, timeScale: null,
  achievedScale: null,
  marker: null, replies: [], grid: null, replayIndex: 0, entities: 0,
});

let ws = null;
let nextId = 1;
const waiting = new Map();
let seabedImage = null;   // offscreen canvas of the seabed, one pixel per sample
let trails = new Map();   // agent name -> [[x, y, z, seabed_z, dist]]
let trailEpoch = 0;       // bumped when trails are trimmed
let dirty = true;
let scheduled = false;

// Frames are drawn only when something changed: an idle page asks the
// browser for nothing.
function markDirty() {
  dirty = true;
  schedule();
}

function schedule() {
  if (!scheduled) { scheduled = true; requestAnimationFrame(frameLoop); }
}
let drawTimes = [];
let lastSlow = -1e9, slowPending = false;
let replay = null;        // {frames, playing, speed, startWall, startT}
let view = null;          // current map transform

// ---- connection ------------------------------------------------------------

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws`);
  ws.onopen = () => { V.connected = true; setConn(true); syncPanels(); };
  ws.onclose = () => {
    V.connected = false; setConn(false);
    for (const [, w] of waiting) w.reject(new Error("connection closed"));
    waiting.clear();
    setTimeout(connect, 1000);
  };
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    switch (m.type) {
      case "hello": onHello(m); break;
      case "scene": onScene(m); break;
      case "frame": onFrame(m); break;
      case "overlays": V.overlays = m.overlays || null; markDirty(); break;
      case "replay": onReplay(m); break;
      case "reply": onReply(m); break;
      case "sensor": onSensor(m); break;
    }
  };
}

function setConn(on) {
  const c = $("conn");
  c.textContent = on ? "connected" : "offline";
  c.className = "badge " + (on ? "on" : "off");
}

function request(req) {
  return new Promise((resolve, reject) => {
    if (!ws || ws.readyState !== 1) { reject(new Error("not connected")); return; }
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    ws.send(JSON.stringify({ type: "request", id, request: Object.assign({ protocol_version: 2 }, req) }));
  });
}

function onReply(m) {
  V.replies.push(m);
  if (V.replies.length > 50) V.replies.shift();
  const w = waiting.get(m.id);
  if (!w) { if (m.error) say(m.error); return; }
  waiting.delete(m.id);
  if (m.error) { say(m.error); w.reject(new Error(m.error)); return; }
  const r = m.response || {};
  if (r.status === "error" || r.success === false) {
    const why = (r.error && (r.error.message || r.error.code)) || r.message || "refused";
    say(`${r.action || "request"}: ${why}`);
  }
  w.resolve(r);
}

function say(text) { $("message").textContent = text; }

// ---- messages --------------------------------------------------------------

function onHello(m) {
  V.mode = m.mode; V.controls = !!m.controls; V.maxFps = m.max_fps || null;
  $("mode").textContent = m.mode;
  $("title").textContent = m.title || "oceansim";
  document.title = `${m.title || "oceansim"} · oceansim viewer`;
  $("controls").hidden = !(m.mode === "live" && m.controls);
  $("replay").hidden = m.mode !== "replay";
  if (m.mode !== "replay") replay = null;
  $("side-wrap").hidden = m.mode === "swarm";
  $("vehicle").hidden = m.mode === "swarm";
  resize();
}

function onScene(m) {
  V.scene = m;
  if (m.title) $("title").textContent = m.title;
  seabedImage = m.seabed ? shadeSeabed(m.seabed) : null;
  trails = new Map();
  V.grid = null;
  $("grid").setAttribute("aria-pressed", "false");
  setupPanels(m);
  markDirty();
}

function onFrame(m) {
  V.frame = m;
  V.frames++;
  V.simTime = m.t;
  if (m.paused !== undefined) V.paused = m.paused;
  if (m.time_scale !== undefined) V.timeScale = m.time_scale;
  if (m.achieved_time_scale !== undefined) V.achievedScale = m.achieved_time_scale;
  if (m.agents) for (const a of m.agents) pushTrail(a);
  markDirty();
}

function onReplay(m) {
  onScene(m.scene || { bounds: [-10, 10, -10, 10], obstacles: [] });
  if (m.title) $("title").textContent = m.title;
  replay = { frames: m.frames || [], playing: false, speed: Number($("speed").value) || 1, startWall: 0, startT: 0 };
  $("play").textContent = "Play";
  const s = $("slider");
  s.max = Math.max(0, replay.frames.length - 1);
  s.value = 0;
  // Trails of the whole run, drawn faintly behind the replayed frame.
  replay.frames.forEach((f, i) => { for (const a of f.agents) pushTrail(a, i); });
  showReplayFrame(0);
}

function showReplayFrame(i) {
  if (!replay || replay.frames.length === 0) return;
  i = Math.max(0, Math.min(replay.frames.length - 1, i | 0));
  V.replayIndex = i;
  $("slider").value = i;
  const f = replay.frames[i];
  V.frame = Object.assign({ type: "frame" }, f);
  V.frames++;
  V.simTime = f.t;
  seekPanels();
  markDirty();
}

function pushTrail(a, frameIndex) {
  let t = trails.get(a.name);
  if (!t) { t = []; trails.set(a.name, t); }
  const last = t[t.length - 1];
  const [x, y, z] = a.p;
  if (last && last[0] === x && last[1] === y && last[2] === z) return;
  const d = last ? last[4] + Math.hypot(x - last[0], y - last[1]) : 0;
  let sz = a.seabed_z;
  if (sz === undefined || sz === null) sz = seabedAt(x, y);
  t.push([x, y, z, sz, d, frameIndex]);
  // Live trails are trimmed in chunks (each trim redraws the trail layer
  // whole); a replay keeps its whole run.
  if (!replay && t.length > TRAIL_MAX + 500) { t.splice(0, t.length - TRAIL_MAX); trailEpoch++; }
}

// ---- seabed ------------------------------------------------------------------

function shadeSeabed(s) {
  const c = document.createElement("canvas");
  c.width = s.cols; c.height = s.rows;
  const g = c.getContext("2d");
  const img = g.createImageData(s.cols, s.rows);
  let lo = Infinity, hi = -Infinity;
  for (const z of s.z) { lo = Math.min(lo, z); hi = Math.max(hi, z); }
  const span = Math.max(hi - lo, 1e-6);
  for (let v = 0; v < s.rows; v++) {
    for (let u = 0; u < s.cols; u++) {
      const k = v * s.cols + u;
      const t = (s.z[k] - lo) / span;           // 0 deep .. 1 shallow
      // Hill shading from the north-west, so relief reads at a glance.
      const e = s.z[v * s.cols + Math.min(u + 1, s.cols - 1)] - s.z[k];
      const n = s.z[Math.max(v - 1, 0) * s.cols + u] - s.z[k];
      const shade = Math.max(0.55, Math.min(1.3, 1 + 0.35 * (n - e)));
      img.data[4 * k] = (15 + 70 * t) * shade;
      img.data[4 * k + 1] = (45 + 120 * t) * shade;
      img.data[4 * k + 2] = (85 + 125 * t) * shade;
      img.data[4 * k + 3] = 255;
    }
  }
  g.putImageData(img, 0, 0);
  return c;
}

function seabedAt(x, y) {
  const sc = V.scene;
  if (!sc || !sc.seabed) return null;
  const [x0, x1, y0, y1] = sc.bounds, s = sc.seabed;
  const u = Math.floor((x - x0) / (x1 - x0) * s.cols), v = Math.floor((y1 - y) / (y1 - y0) * s.rows);
  if (u < 0 || v < 0 || u >= s.cols || v >= s.rows) return null;
  return s.z[v * s.cols + u];
}

// ---- drawing -----------------------------------------------------------------

function resize() {
  // Panels redraw their last sample at the new size (panels.js loads
  // after this file's first resize).
  if (typeof redrawPanels === "function") redrawPanels();
  movingBox = null;
  still = null;
  trailLayer = null;
  for (const id of ["map-still", "map-trails", "map", "side"]) {
    const c = $(id);
    const r = c.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.max(1, Math.round(r.width * dpr));
    c.height = Math.max(1, Math.round(r.height * dpr));
  }
  markDirty();
}

function mapTransform(c) {
  let [x0, x1, y0, y1] = (V.scene && V.scene.bounds) || [-10, 10, -10, 10];
  // Agents, overlays and swarms may leave the map: keep them in view.
  const grow = (x, y) => {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
  };
  const f = V.frame;
  const pts = f && f.points;
  if (pts) for (let i = 0; i < pts.x.length; i++) grow(pts.x[i], pts.y[i]);
  if (f && f.agents) for (const a of f.agents) grow(a.p[0], a.p[1]);
  if (V.overlays) {
    const o = V.overlays;
    for (const list of [o.nav_path, o.waypoints, o.pred_trajectory]) for (const p of list || []) grow(p[0], p[1]);
    if (o.waypoint) grow(o.waypoint[0], o.waypoint[1]);
  }
  const pad = 24 * (window.devicePixelRatio || 1);
  const s = Math.min((c.width - 2 * pad) / Math.max(x1 - x0, 1e-6), (c.height - 2 * pad) / Math.max(y1 - y0, 1e-6));
  const ox = (c.width - s * (x1 - x0)) / 2, oy = (c.height - s * (y1 - y0)) / 2;
  return {
    s, x0, x1, y0, y1,
    px: (x) => ox + (x - x0) * s,
    py: (y) => oy + (y1 - y) * s,
    inv: (u, v) => [x0 + (u - ox) / s, y1 - (v - oy) / s],
  };
}

// The map is three stacked canvases, so a frame repaints only what moved:
// the still layer (seabed, edge, grid, obstacles, overlays) is redrawn when
// the scene, the grid, the overlays or the view change; trails are drawn
// segment by segment as they grow; the top layer clears and redraws only
// the box its agents covered last time. That keeps the browser light on a
// small machine (and leaves the simulation its cores).
let still = null;
let trailLayer = null;     // {key, drawn: Map(name -> points drawn)}
let movingBox = null;      // [x0, y0, x1, y1] in canvas pixels

function drawMap() {
  const c = $("map"), g = c.getContext("2d", { desynchronized: true });
  const dpr = window.devicePixelRatio || 1;
  const T = (view = mapTransform(c));
  const key = [c.width, c.height, T.s, T.x0, T.y1].join();
  const overlays = V.overlays;
  if (!still || still.key !== key || still.scene !== V.scene || still.grid !== V.grid || still.overlays !== overlays) {
    const sc = $("map-still");
    drawStill(sc.getContext("2d"), T, sc);
    if (overlays) drawOverlays(sc.getContext("2d"), T, overlays);
    still = { key, scene: V.scene, grid: V.grid, overlays };
  }
  drawTrails(T, key, dpr);
  // The top layer: clear last frame's box, draw the agents, keep the box.
  if (movingBox) {
    const [a, b, x, y] = movingBox;
    g.clearRect(a, b, x - a, y - b);
  } else {
    g.clearRect(0, 0, c.width, c.height);
  }
  movingBox = drawMoving(g, T, dpr);
}

function drawTrails(T, key, dpr) {
  const c = $("map-trails"), g = c.getContext("2d", { desynchronized: true });
  const full = !trailLayer || trailLayer.key !== key || trailLayer.trails !== trails || trailLayer.epoch !== trailEpoch;
  if (full) {
    g.clearRect(0, 0, c.width, c.height);
    trailLayer = { key, trails, epoch: trailEpoch, drawn: new Map() };
  }
  let i = 0;
  g.globalAlpha = 0.75; g.lineWidth = 1.5 * dpr; g.lineJoin = "round";
  for (const [name, t] of trails) {
    const from = Math.max(0, (trailLayer.drawn.get(name) || 0) - 1);
    if (t.length - from >= 2) {
      g.strokeStyle = COLORS[i % COLORS.length];
      g.beginPath();
      g.moveTo(T.px(t[from][0]), T.py(t[from][1]));
      for (let k = from + 1; k < t.length; k++) g.lineTo(T.px(t[k][0]), T.py(t[k][1]));
      g.stroke();
    }
    trailLayer.drawn.set(name, t.length);
    i++;
  }
  g.globalAlpha = 1;
}

function drawStill(g, T, c) {
  const dpr = window.devicePixelRatio || 1;
  g.fillStyle = "#081018"; g.fillRect(0, 0, c.width, c.height);
  const sc = V.scene;
  if (sc) {
    const [x0, x1, y0, y1] = sc.bounds;
    if (seabedImage) {
      g.imageSmoothingEnabled = true;
      g.drawImage(seabedImage, T.px(x0), T.py(y1), (x1 - x0) * T.s, (y1 - y0) * T.s);
    } else {
      g.fillStyle = "#10283a";
      g.fillRect(T.px(x0), T.py(y1), (x1 - x0) * T.s, (y1 - y0) * T.s);
    }
    g.strokeStyle = "#2f5a77"; g.lineWidth = dpr;
    g.strokeRect(T.px(x0), T.py(y1), (x1 - x0) * T.s, (y1 - y0) * T.s);
    for (const o of sc.obstacles || []) drawObstacle(g, T, o);
    // Over the obstacles: the grid says what is blocked at this depth.
    drawGrid(g, T);
  }
  drawScale(g, T, c);
}

/// Draws the agents (or swarm points) and returns the box they cover.
function drawMoving(g, T, dpr) {
  const f = V.frame;
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  const cover = (x, y, r) => {
    box[0] = Math.min(box[0], x - r); box[1] = Math.min(box[1], y - r);
    box[2] = Math.max(box[2], x + r); box[3] = Math.max(box[3], y + r);
  };
  V.marker = null;
  if (f && f.agents) {
    f.agents.forEach((a, k) => {
      const r = drawAgent(g, T, a, colorOf(a.name, k));
      cover(T.px(a.p[0]), T.py(a.p[1]), r);
      // The label runs to the right of the marker.
      cover(T.px(a.p[0]) + (12 + 7 * a.name.length) * dpr, T.py(a.p[1]) - 8 * dpr, 14 * dpr);
    });
  }
  lidarOnMap(g, T, dpr, cover);
  acousticOnMap(g, T, dpr, cover);
  if (f && f.points) {
    const r = drawPoints(g, T, f.points);
    for (let i = 0; i < f.points.x.length; i++) cover(T.px(f.points.x[i]), T.py(f.points.y[i]), r);
  }
  if (!Number.isFinite(box[0])) return [0, 0, 0, 0];
  return [Math.floor(box[0] - 2), Math.floor(box[1] - 2), Math.ceil(box[2] + 2), Math.ceil(box[3] + 2)];
}

function colorOf(name) {
  let i = 0;
  for (const k of trails.keys()) { if (k === name) return COLORS[i % COLORS.length]; i++; }
  return COLORS[1];
}

function drawGrid(g, T) {
  const q = V.grid;
  if (!q) return;
  g.fillStyle = "rgba(231, 76, 60, 0.55)";
  const [ox, oy] = q.origin_user, cs = q.cell_size;
  for (let j = 0; j < q.height; j++) {
    const row = q.grid[j];
    for (let i = 0; i < q.width; i++) {
      if (row[i]) g.fillRect(T.px(ox + i * cs), T.py(oy + (j + 1) * cs), cs * T.s + 0.5, cs * T.s + 0.5);
    }
  }
}

function drawObstacle(g, T, o) {
  g.fillStyle = "rgba(149, 165, 166, 0.85)"; g.strokeStyle = "#dfe6e9"; g.lineWidth = 1;
  g.beginPath();
  if (o.polygon) {
    o.polygon.forEach((p, k) => (k ? g.lineTo(T.px(p[0]), T.py(p[1])) : g.moveTo(T.px(p[0]), T.py(p[1]))));
    g.closePath();
  } else {
    g.arc(T.px(o.center[0]), T.py(o.center[1]), Math.max(2, (o.radius || 0.5) * T.s), 0, 2 * Math.PI);
  }
  g.fill(); g.stroke();
}

function polyline(g, T, pts, color, dash, width) {
  if (!pts || pts.length === 0) return;
  g.strokeStyle = color; g.fillStyle = color; g.lineWidth = width * (window.devicePixelRatio || 1);
  g.setLineDash(dash);
  g.beginPath();
  pts.forEach((p, k) => (k ? g.lineTo(T.px(p[0]), T.py(p[1])) : g.moveTo(T.px(p[0]), T.py(p[1]))));
  g.stroke(); g.setLineDash([]);
}

function dot(g, T, p, color, r) {
  g.fillStyle = color; g.beginPath();
  g.arc(T.px(p[0]), T.py(p[1]), r * (window.devicePixelRatio || 1), 0, 2 * Math.PI); g.fill();
}

function drawOverlays(g, T, o) {
  polyline(g, T, o.nav_path, "#1abc9c", [], 2.5);
  for (const p of o.nav_path || []) dot(g, T, p, "#1abc9c", 2.5);
  polyline(g, T, o.waypoints, "#f39c12", [6, 4], 1.5);
  for (const p of o.waypoints || []) dot(g, T, p, "#f39c12", 4);
  if (o.waypoint) {
    dot(g, T, o.waypoint, "#f39c12", 6);
    dot(g, T, o.waypoint, "#081018", 2.5);
  }
  polyline(g, T, o.pred_trajectory, "#e056fd", [3, 3], 2);
}

function drawAgent(g, T, a, color) {
  const dpr = window.devicePixelRatio || 1;
  const x = T.px(a.p[0]), y = T.py(a.p[1]);
  const h = ((a.heading_deg || 0) * Math.PI) / 180;
  // The footprint to scale, but never smaller than a readable marker.
  const L = Math.max((a.length || 1) * T.s, 14 * dpr), W = Math.max((a.width || 0.5) * T.s, 6 * dpr);
  g.save();
  g.translate(x, y);
  g.rotate(h);              // compass: 0 = up (north), clockwise
  g.fillStyle = color; g.strokeStyle = "#081018"; g.lineWidth = 1.5 * dpr;
  g.beginPath();
  g.moveTo(0, -L / 2);
  g.lineTo(W / 2, -L / 2 + W / 2);
  g.lineTo(W / 2, L / 2);
  g.lineTo(-W / 2, L / 2);
  g.lineTo(-W / 2, -L / 2 + W / 2);
  g.closePath(); g.fill(); g.stroke();
  g.restore();
  g.fillStyle = "#dfe8ee"; g.font = `${11 * dpr}px system-ui, sans-serif`;
  g.fillText(a.name, x + 10 * dpr, y - 8 * dpr);
  if (a.main) V.marker = { name: a.name, x: x / dpr, y: y / dpr, heading_deg: a.heading_deg };
  return Math.hypot(L, W) / 2 + 2 * dpr;
}

function drawPoints(g, T, p) {
  const dpr = window.devicePixelRatio || 1;
  const n = p.x.length, r = Math.max(2, Math.min(6, 0.3 * T.s)) * dpr;
  V.entities = n;
  g.fillStyle = "#f1c40f";
  g.beginPath();
  for (let i = 0; i < n; i++) {
    const x = T.px(p.x[i]), y = T.py(p.y[i]);
    if (p.h) {
      const h = (p.h[i] * Math.PI) / 180, s = Math.sin(h), c = Math.cos(h);
      // A small arrowhead along the heading.
      g.moveTo(x + s * 2 * r, y - c * 2 * r);
      g.lineTo(x - s * r + c * r, y + c * r + s * r);
      g.lineTo(x - s * r - c * r, y + c * r - s * r);
      g.closePath();
    } else {
      g.moveTo(x + r, y);
      g.arc(x, y, r, 0, 2 * Math.PI);
    }
  }
  g.fill();
  if (n) V.marker = { name: "entity 0", x: T.px(p.x[0]) / dpr, y: T.py(p.y[0]) / dpr };
  return 2 * r + dpr;
}

function drawScale(g, T, c) {
  const dpr = window.devicePixelRatio || 1;
  const target = 120 * dpr / T.s;
  const step = Math.pow(10, Math.floor(Math.log10(target)));
  const m = [1, 2, 5, 10].map((k) => k * step).filter((v) => v <= target).pop() || step;
  const x = 16 * dpr, y = c.height - 14 * dpr;
  g.strokeStyle = "#dfe8ee"; g.lineWidth = 2 * dpr;
  g.beginPath(); g.moveTo(x, y); g.lineTo(x + m * T.s, y); g.stroke();
  g.fillStyle = "#dfe8ee"; g.font = `${11 * dpr}px system-ui, sans-serif`;
  g.fillText(`${m} m`, x, y - 5 * dpr);
  g.fillText("N ↑", c.width - 36 * dpr, 18 * dpr);
}

function drawSide() {
  const c = $("side"), g = c.getContext("2d", { desynchronized: true });
  const dpr = window.devicePixelRatio || 1;
  g.fillStyle = "#081018"; g.fillRect(0, 0, c.width, c.height);
  const main = V.frame && V.frame.agents && V.frame.agents.find((a) => a.main);
  const t = main && trails.get(main.name);
  if (!t || t.length === 0) return;
  let upto = t.length;
  if (replay) {
    // Replay: the track up to the slider's frame.
    upto = 0;
    while (upto < t.length && t[upto][5] <= V.replayIndex) upto++;
    upto = Math.max(1, upto);
  }
  const pts = t.slice(0, upto);
  const d1 = Math.max(pts[pts.length - 1][4], 1);
  let zlo = Infinity, zhi = -Infinity;
  for (const p of pts) {
    zlo = Math.min(zlo, p[2], p[3] ?? p[2]); zhi = Math.max(zhi, p[2], p[3] ?? p[2]);
  }
  zhi = Math.max(zhi, Math.min(0, zhi + 2)) + 1; zlo -= 1;
  const pad = 28 * dpr;
  const px = (d) => pad + (d / d1) * (c.width - 2 * pad);
  const py = (z) => pad / 2 + ((zhi - z) / Math.max(zhi - zlo, 1e-6)) * (c.height - pad * 1.5);
  // The seabed under the track.
  g.fillStyle = "#5d4a36"; g.beginPath(); g.moveTo(px(0), c.height);
  for (const p of pts) g.lineTo(px(p[4]), py(p[3] ?? zlo));
  g.lineTo(px(pts[pts.length - 1][4]), c.height); g.closePath(); g.fill();
  g.strokeStyle = "#f1c40f"; g.lineWidth = 2 * dpr; g.beginPath();
  pts.forEach((p, k) => (k ? g.lineTo(px(p[4]), py(p[2])) : g.moveTo(px(p[4]), py(p[2]))));
  g.stroke();
  const last = pts[pts.length - 1];
  g.fillStyle = "#f1c40f"; g.beginPath(); g.arc(px(last[4]), py(last[2]), 4 * dpr, 0, 2 * Math.PI); g.fill();
  g.fillStyle = "#8aa1b1"; g.font = `${11 * dpr}px system-ui, sans-serif`;
  g.fillText(`depth ${(-zhi).toFixed(1)}…${(-zlo).toFixed(1)} m`, pad, 12 * dpr);
  g.fillText(`${d1.toFixed(0)} m along track`, c.width - pad - 100 * dpr, c.height - 4 * dpr);
}

function fmt(v, unit, digits = 2) {
  return v === null || v === undefined || Number.isNaN(v) ? "–" : `${Number(v).toFixed(digits)}${unit}`;
}

function drawPanel() {
  $("sim-time").textContent = fmt(V.simTime, " s");
  // The scale asked for, and what the host kept up when it fell short.
  const short = V.achievedScale !== null && V.timeScale !== null
    && V.achievedScale < 0.95 * V.timeScale;
  $("time-scale").textContent = V.timeScale === null ? "–"
    : short ? `${V.timeScale}x (achieved ${V.achievedScale.toFixed(1)}x)` : `${V.timeScale}x`;
  $("paused").textContent = V.paused === null ? "–" : V.paused ? "paused" : "running";
  $("pause").textContent = V.paused ? "Resume" : "Pause";
  $("fps").textContent = V.maxFps ? `${V.fps.toFixed(1)} (at most ${V.maxFps})` : V.fps.toFixed(1);
  const f = V.frame;
  const a = f && f.agents && (f.agents.find((x) => x.main) || f.agents[0]);
  $("agents").textContent = f ? (f.agents ? f.agents.length : f.points ? f.points.x.length : 0) : "–";
  if (!a) return;
  $("agent-name").textContent = a.name;
  $("depth").textContent = fmt(-a.p[2], " m");
  const sz = a.seabed_z ?? seabedAt(a.p[0], a.p[1]);
  $("altitude").textContent = sz === null || sz === undefined ? "–" : fmt(a.p[2] - sz, " m");
  $("speed-val").textContent = fmt(a.speed, " m/s");
  $("heading").textContent = fmt(a.heading_deg, "°", 1);
  $("command").textContent = a.command ? `${a.command.action} ${JSON.stringify(a.command.data)} @ ${fmt(a.command.t, " s", 1)}` : "none";
}

function frameLoop(now) {
  // Whatever a frame throws, the next one is still scheduled.
  try {
    drawFrame(now);
  } finally {
    scheduled = false;
    if ((replay && replay.playing) || slowPending) schedule();
  }
}

function drawFrame(now) {
  if (replay && replay.playing) {
    const t = replay.startT + ((now - replay.startWall) / 1000) * replay.speed;
    let i = V.replayIndex;
    while (i + 1 < replay.frames.length && replay.frames[i + 1].t <= t) i++;
    if (i !== V.replayIndex) showReplayFrame(i);
    if (i + 1 >= replay.frames.length) { replay.playing = false; $("play").textContent = "Play"; }
  }
  if (dirty) {
    dirty = false;
    const t0 = performance.now();
    drawMap();
    V.mapMs = 0.9 * (V.mapMs || 0) + 0.1 * (performance.now() - t0);
    // Text and the side view change slowly to the eye: 10 a second keeps
    // the page's layout and paint work small.
    if (now - lastSlow >= 100 || replay) {
      lastSlow = now;
      const t1 = performance.now();
      if (!$("side-wrap").hidden) drawSide();
      drawPanel();
      V.slowMs = 0.9 * (V.slowMs || 0) + 0.1 * (performance.now() - t1);
    } else {
      slowPending = true;
    }
    V.draws++;
    drawTimes.push(now);
  } else if (slowPending && now - lastSlow >= 100) {
    slowPending = false;
    lastSlow = now;
    if (!$("side-wrap").hidden) drawSide();
    drawPanel();
  }
}

// Updates drawn in the last second, as the page counts them.
setInterval(() => {
  const now = performance.now();
  while (drawTimes.length && drawTimes[0] < now - 1000) drawTimes.shift();
  V.fps = drawTimes.length;
  $("fps").textContent = V.maxFps ? `${V.fps.toFixed(1)} (at most ${V.maxFps})` : V.fps.toFixed(1);
}, 250);

// ---- controls ----------------------------------------------------------------

$("pause").onclick = () => {
  request({ type: "sim_control", action: V.paused ? "resume" : "pause" }).catch(() => {});
};
$("scale-set").onclick = () => {
  const v = Number($("scale-input").value);
  request({ type: "sim_control", action: "set_time_scale", data: { time_scale: v } }).catch(() => {});
};
$("grid").onclick = async () => {
  const b = $("grid");
  if (V.grid) { V.grid = null; b.setAttribute("aria-pressed", "false"); markDirty(); return; }
  const a = V.frame && V.frame.agents && V.frame.agents.find((x) => x.main);
  const [x0, x1] = (V.scene && V.scene.bounds) || [0, 100];
  const cell = Math.max(0.25, (x1 - x0) / 200);
  try {
    const r = await request({ type: "command", action: "get_terrain_grid",
      data: { cell_size: cell, auv_y: a ? a.p[2] : -5, include_static_obstacles: true, include_dynamic_agents: true } });
    if (r.data && r.data.grid) { V.grid = r.data; b.setAttribute("aria-pressed", "true"); markDirty(); }
  } catch (e) { say(String(e.message || e)); }
};
$("play").onclick = () => {
  if (!replay) return;
  replay.playing = !replay.playing;
  if (replay.playing && V.replayIndex + 1 >= replay.frames.length) showReplayFrame(0);
  replay.startWall = performance.now();
  replay.startT = replay.frames[V.replayIndex] ? replay.frames[V.replayIndex].t : 0;
  $("play").textContent = replay.playing ? "Pause" : "Play";
  schedule();
};
$("speed").onchange = () => {
  if (!replay) return;
  replay.speed = Number($("speed").value);
  replay.startWall = performance.now();
  replay.startT = V.simTime || 0;
};
$("slider").oninput = () => {
  if (!replay) return;
  showReplayFrame(Number($("slider").value));
  replay.startWall = performance.now();
  replay.startT = V.simTime || 0;
};
$("map").onmousemove = (ev) => {
  if (!view) return;
  const dpr = window.devicePixelRatio || 1;
  const r = $("map").getBoundingClientRect();
  const [x, y] = view.inv((ev.clientX - r.left) * dpr, (ev.clientY - r.top) * dpr);
  const sz = seabedAt(x, y);
  $("cursor").textContent = `x ${x.toFixed(1)} m, y ${y.toFixed(1)} m` + (sz === null ? "" : `, seabed ${(-sz).toFixed(1)} m deep`);
};

window.addEventListener("resize", resize);
// Once every script of the page has run (panels.js after this one).
document.addEventListener("DOMContentLoaded", () => {
  resize();
  connect();
  schedule();
});
