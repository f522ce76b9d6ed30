// oceansim viewer: sensor panels (docs/viewer.md, "Sensor panels").
// A panel shows one sensor of the scene's `sensors` list. The page asks the
// server only for the sensors whose panels are open ({"type":"panels"}), so
// a closed panel costs nothing; a panel still drawing its last sample keeps
// only the newest one waiting (a slow page drops samples, never the run).
// Points arrive in the agent's base_link (FLU, cm); sonar images in the
// sensor's own layout (see panel_message in oceansim-sim).
"use strict";

// What tests read: one entry per sensor of the scene, in its order.
V.panels = [];
V.acoustic = 0;
const panelState = new Map();   // key -> state (entry of V.panels + drawing state)
let seekSent = null;

// ---- the list and the subscription ----------------------------------------

function setupPanels(scene) {
  const list = (scene && scene.sensors) || [];
  const keep = new Set(list.map((s) => s.key));
  for (const [k, p] of panelState) if (!keep.has(k)) { p.card && p.card.remove(); panelState.delete(k); }
  const ul = $("sensor-list");
  ul.textContent = "";
  V.panels = [];
  for (const s of list) {
    let p = panelState.get(s.key);
    if (!p) {
      p = { key: s.key, sensor: s.sensor, agent: s.agent, kind: s.kind, frame: s.frame, parent: s.parent,
            units: s.units, rate_hz: s.rate_hz, shown: false, updates: 0, draws: 0, last_t: null, last_seq: null,
            card: null, busy: false, waiting: null };
      panelState.set(s.key, p);
    } else {
      // A new scene: what was drawn or waiting belongs to the old one.
      p.last_seq = null; p.waiting = null; p.msg = null; p.scan = null; p.cloud = null; p.fall = null; p.rows = 0;
    }
    V.panels.push(p.pub || (p.pub = publicView(p)));
    const li = document.createElement("li");
    const box = document.createElement("input");
    box.type = "checkbox"; box.id = "panel-" + s.key; box.checked = p.shown;
    box.dataset.key = s.key;
    box.onchange = () => showPanel(s.key, box.checked);
    const label = document.createElement("label");
    label.htmlFor = box.id;
    label.textContent = `${s.agent === mainAgentName() ? s.sensor : s.key}`;
    label.title = `${s.kind} · frame ${s.frame} · ${s.units}`;
    const kind = document.createElement("span");
    kind.className = "hint"; kind.textContent = ` ${s.kind}`;
    li.append(box, label, kind);
    ul.append(li);
  }
  $("sensors-box").hidden = list.length === 0;
  syncPanels();
}

// A plain view of a panel's state for tests (getters, so it stays live).
function publicView(p) {
  const o = {};
  for (const k of ["key", "sensor", "agent", "kind", "frame", "units", "shown", "updates", "draws", "last_t", "last_seq", "info"]) {
    Object.defineProperty(o, k, { enumerable: true, get: () => p[k] });
  }
  Object.defineProperty(o, "canvas", { enumerable: true, get: () => (p.canvas ? p.canvas.id : null) });
  Object.defineProperty(o, "geometry", { enumerable: true, get: () => p.geometry || null });
  return o;
}

function mainAgentName() {
  const f = V.frame;
  const a = f && f.agents && f.agents.find((x) => x.main);
  return a ? a.name : "auv/main";
}

function showPanel(key, on) {
  const p = panelState.get(key);
  if (!p) return;
  p.shown = !!on;
  const box = document.getElementById("panel-" + key);
  if (box) box.checked = p.shown;
  if (p.shown && !p.card) makeCard(p);
  if (p.card) p.card.hidden = !p.shown;
  if (!p.shown) { p.waiting = null; }
  $("panels").hidden = ![...panelState.values()].some((x) => x.shown && x.kind !== "lidar_2d") ;
  syncPanels();
  resize();
}

// Tells the server what the page shows (on every change and reconnect).
function syncPanels() {
  if (!ws || ws.readyState !== 1) return;
  const keys = [...panelState.values()].filter((p) => p.shown).map((p) => p.key);
  ws.send(JSON.stringify({ type: "panels", sensors: keys }));
  if (replay) { seekSent = null; seekPanels(); }
}

// A replay's panels follow the slider: the page says its time.
function seekPanels() {
  if (!replay || !ws || ws.readyState !== 1) return;
  const t = V.simTime;
  if (t === null || t === undefined || t === seekSent) return;
  if (![...panelState.values()].some((p) => p.shown)) return;
  seekSent = t;
  ws.send(JSON.stringify({ type: "seek", t }));
}

function makeCard(p) {
  const card = document.createElement("section");
  card.className = "panel"; card.id = "card-" + p.key;
  const head = document.createElement("header");
  const title = document.createElement("b");
  title.textContent = p.sensor;
  const meta = document.createElement("span");
  meta.className = "hint";
  meta.textContent = ` ${p.kind} · ${p.frame} · ${p.units}`;
  const close = document.createElement("button");
  close.type = "button"; close.textContent = "×"; close.title = "Hide";
  close.onclick = () => showPanel(p.key, false);
  head.append(title, meta, close);
  const c = document.createElement("canvas");
  c.id = "canvas-" + p.key;
  const info = document.createElement("div");
  info.className = "hint panel-info";
  card.append(head, c, info);
  p.card = card; p.canvas = c; p.infoEl = info;
  if (p.kind === "lidar_2d") {
    // Drawn on the map; the card only says so.
    c.hidden = true;
    info.textContent = "drawn on the map around its agent";
  }
  if (p.kind === "lidar_3d" || p.kind === "rgbd_dense_cloud") attachOrbit(p);
  $("panels").append(card);
}

// ---- messages ----------------------------------------------------------------

// Samples are drawn at most once an animation frame (numbers ten times a
// second): a panel keeps only its newest undrawn sample.
const SLOW_KINDS = new Set(["depth", "imu", "dvl"]);
let panelsScheduled = false;

function onSensor(m) {
  const p = panelState.get(m.key);
  if (!p || !p.shown) return;
  p.updates++;
  p.waiting = m;
  if (!panelsScheduled) { panelsScheduled = true; requestAnimationFrame(drawWaiting); }
}

function drawWaiting(now) {
  panelsScheduled = false;
  let more = false;
  for (const p of panelState.values()) {
    if (!p.waiting || p.busy) continue;
    if (SLOW_KINDS.has(p.kind) && now - (p.drawnAt || -1e9) < 100) { more = true; continue; }
    const m = p.waiting;
    p.waiting = null;
    p.drawnAt = now;
    drawSensor(p, m);
  }
  if (more && !panelsScheduled) { panelsScheduled = true; requestAnimationFrame(drawWaiting); }
}

async function drawSensor(p, m) {
  p.busy = true;
  try {
    await DRAW[p.kind]?.(p, m);
    p.last_t = m.t; p.last_seq = m.seq; p.draws++;
    p.msg = m;
  } catch (e) {
    p.error = String(e && e.message || e);
  } finally {
    p.busy = false;
    if (p.waiting && !panelsScheduled) { panelsScheduled = true; requestAnimationFrame(drawWaiting); }
  }
}

function redrawPanels() {
  for (const p of panelState.values()) if (p.shown && p.msg && !p.busy && p.kind !== "side_scan_sonar") drawSensor(p, p.msg);
}

function fitCanvas(c, aspect) {
  const dpr = window.devicePixelRatio || 1;
  if (aspect && c.style.aspectRatio !== String(aspect)) c.style.aspectRatio = String(aspect);
  const r = c.getBoundingClientRect();
  const w = Math.max(50, Math.round(r.width * dpr));
  const h = Math.max(50, Math.round((aspect ? r.width / aspect : r.height) * dpr));
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
  return dpr;
}

// ---- PNG (8- and 16-bit grayscale, exact values) -------------------------------

function b64bytes(s) {
  const bin = atob(s || "");
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// Decodes a non-interlaced PNG into {width, height, channels, depth,
// data}: samples as numbers (16-bit ones whole), so depth and echo levels
// are read exactly rather than through the browser's colour pipeline.
async function decodePng(b64) {
  const b = b64bytes(b64);
  const dv = new DataView(b.buffer);
  let at = 8, width = 0, height = 0, depth = 8, type = 0;
  const idat = [];
  while (at + 8 <= b.length) {
    const len = dv.getUint32(at); const kind = String.fromCharCode(...b.subarray(at + 4, at + 8));
    const data = b.subarray(at + 8, at + 8 + len);
    if (kind === "IHDR") { width = dv.getUint32(at + 8); height = dv.getUint32(at + 12); depth = b[at + 16]; type = b[at + 17]; }
    else if (kind === "IDAT") idat.push(data);
    else if (kind === "IEND") break;
    at += 12 + len;
  }
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[type] || 1;
  const raw = new Uint8Array(await new Response(new Blob(idat).stream().pipeThrough(new DecompressionStream("deflate"))).arrayBuffer());
  const bpp = Math.max(1, (channels * depth) >> 3), stride = (width * channels * depth + 7) >> 3;
  const px = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)], src = y * (stride + 1) + 1, dst = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[dst + x - bpp] : 0, up = y ? px[dst - stride + x] : 0, c = y && x >= bpp ? px[dst - stride + x - bpp] : 0;
      let v = raw[src + x];
      if (f === 1) v += a; else if (f === 2) v += up; else if (f === 3) v += (a + up) >> 1;
      else if (f === 4) { const pa = Math.abs(up - c), pb = Math.abs(a - c), pc = Math.abs(a + up - 2 * c); v += pa <= pb && pa <= pc ? a : pb <= pc ? up : c; }
      px[dst + x] = v & 255;
    }
  }
  const n = width * height * channels;
  const data = depth === 16 ? new Uint16Array(n) : px.subarray(0, n);
  if (depth === 16) for (let i = 0; i < n; i++) data[i] = (px[2 * i] << 8) | px[2 * i + 1];
  return { width, height, channels, depth, data };
}

function loadImage(b64) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error("image did not decode"));
    img.src = "data:image/png;base64," + b64;
  });
}

// ---- colour scales ------------------------------------------------------------

// Sonar echo: black, copper, white.
function copper(v) { const t = v / 255; return [Math.min(255, 320 * t), Math.min(255, 200 * t * t + 30 * t), Math.min(255, 255 * t * t * t)]; }
// Depth: a perceptual blue-green-yellow ramp (near = yellow, far = blue).
function ramp(t) {
  t = Math.max(0, Math.min(1, t));
  const stops = [[253, 231, 37], [94, 201, 98], [33, 145, 140], [59, 82, 139], [68, 1, 84]];
  const x = t * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(x)), f = x - i;
  return stops[i].map((a, k) => a + f * (stops[i + 1][k] - a));
}

function niceStep(span, target) {
  const raw = span / target, p = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map((k) => k * p).find((s) => s >= raw) || p;
}

function label(g, text, x, y, dpr, align) {
  g.fillStyle = "#dfe8ee"; g.font = `${10 * dpr}px system-ui, sans-serif`; g.textAlign = align || "left";
  g.fillText(text, x, y); g.textAlign = "left";
}

// ---- the kinds -----------------------------------------------------------------

const DRAW = {
  // Forward-looking sonar: the polar image as a fan, range rings and
  // bearing lines labelled. Geometry (CSS px of the canvas) for tests.
  async imaging_sonar(p, m) {
    const d = m.data, img = await decodePng(d.png);
    const c = p.canvas, dpr = fitCanvas(c, 1.6), g = c.getContext("2d");
    const [a0, a1] = d.azimuth_deg, R = d.max_range_m, res = d.range_resolution_m || R / d.bins;
    const half = Math.max(Math.abs(a0), Math.abs(a1)) * Math.PI / 180;
    const margin = 18 * dpr;
    const s = Math.min((c.height - 2 * margin) / R, (c.width - 2 * margin) / (2 * R * Math.sin(Math.min(half, Math.PI / 2))));
    const ox = c.width / 2, oy = c.height - margin;
    const out = g.createImageData(c.width, c.height);
    let peak = { level: -1 };
    for (let v = 0; v < c.height; v++) {
      for (let u = 0; u < c.width; u++) {
        const x = (u - ox) / s, y = (oy - v) / s;
        const r = Math.hypot(x, y);
        if (r > R || y < 0) continue;
        const th = Math.atan2(x, y) * 180 / Math.PI;
        if (th < a0 || th > a1) continue;
        const beam = Math.min(img.width - 1, Math.floor((th - a0) / (a1 - a0) * img.width));
        const bin = Math.min(img.height - 1, Math.floor(r / res));
        const val = img.data[bin * img.width + beam];
        const [cr, cg, cb] = copper(val);
        const k = 4 * (v * c.width + u);
        out.data[k] = cr; out.data[k + 1] = cg; out.data[k + 2] = cb; out.data[k + 3] = 255;
      }
    }
    // The strongest echo of the raw image, where it is.
    for (let bin = 0; bin < img.height; bin++) for (let beam = 0; beam < img.width; beam++) {
      const val = img.data[bin * img.width + beam];
      if (val > peak.level) peak = { level: val, range_m: (bin + 0.5) * res, bearing_deg: a0 + (beam + 0.5) / img.width * (a1 - a0) };
    }
    g.fillStyle = "#04080c"; g.fillRect(0, 0, c.width, c.height);
    g.putImageData(out, 0, 0);
    g.strokeStyle = "rgba(223,232,238,0.35)"; g.lineWidth = dpr;
    const step = niceStep(R, 4);
    for (let r = step; r <= R + 1e-9; r += step) {
      g.beginPath();
      g.arc(ox, oy, r * s, -Math.PI / 2 + a0 * Math.PI / 180, -Math.PI / 2 + a1 * Math.PI / 180);
      g.stroke();
      label(g, `${r} m`, ox + 3 * dpr, oy - r * s - 2 * dpr, dpr);
    }
    for (let b = Math.ceil(a0 / 30) * 30; b <= a1; b += 30) {
      const t = b * Math.PI / 180;
      g.beginPath(); g.moveTo(ox, oy); g.lineTo(ox + R * s * Math.sin(t), oy - R * s * Math.cos(t)); g.stroke();
      label(g, `${b}°`, ox + (R * s + 4 * dpr) * Math.sin(t), oy - (R * s + 4 * dpr) * Math.cos(t), dpr, "center");
    }
    p.geometry = { origin_px: [ox / dpr, oy / dpr], px_per_m: s / dpr, max_range_m: R, azimuth_deg: [a0, a1] };
    p.info = { beams: d.beams, bins: d.bins, peak };
    p.infoEl.textContent = `${d.beams} beams × ${d.bins} bins, ${R} m; strongest echo ${peak.range_m?.toFixed(1)} m at ${peak.bearing_deg?.toFixed(0)}° · t ${m.t.toFixed(2)} s`;
  },

  // Side-scan: each ping a line at the top, older ones scroll down; port
  // on the left (far to near), starboard on the right (near to far).
  async side_scan_sonar(p, m) {
    const d = m.data, port = b64bytes(d.port), stbd = b64bytes(d.starboard), n = d.bins;
    const H = 120;
    // A replay seeking back starts the waterfall afresh.
    const back = replay && p.last_seq !== null && m.seq < p.last_seq;
    if (!p.fall || p.fall.width !== 2 * n || back) {
      p.fall = document.createElement("canvas"); p.fall.width = 2 * n; p.fall.height = H; p.rows = 0;
      const fg = p.fall.getContext("2d"); fg.fillStyle = "#000"; fg.fillRect(0, 0, 2 * n, H);
    }
    const fg = p.fall.getContext("2d");
    fg.drawImage(p.fall, 0, 0, 2 * n, H - 1, 0, 1, 2 * n, H - 1);
    const line = fg.createImageData(2 * n, 1);
    for (let i = 0; i < n; i++) {
      for (const [col, v] of [[n - 1 - i, port[i] || 0], [n + i, stbd[i] || 0]]) {
        const [r, g, b] = copper(v);
        line.data[4 * col] = r; line.data[4 * col + 1] = g; line.data[4 * col + 2] = b; line.data[4 * col + 3] = 255;
      }
    }
    fg.putImageData(line, 0, 0);
    p.rows = (p.rows || 0) + 1;
    const c = p.canvas, dpr = fitCanvas(c, 1.6), g = c.getContext("2d");
    const top = 14 * dpr;
    g.fillStyle = "#04080c"; g.fillRect(0, 0, c.width, c.height);
    g.imageSmoothingEnabled = true;
    g.drawImage(p.fall, 0, top, c.width, c.height - top);
    g.strokeStyle = "rgba(223,232,238,0.5)"; g.lineWidth = dpr;
    g.beginPath(); g.moveTo(c.width / 2, top); g.lineTo(c.width / 2, c.height); g.stroke();
    const R = d.max_range_m;
    label(g, `← port ${R} m`, 4 * dpr, 11 * dpr, dpr);
    label(g, `starboard ${R} m →`, c.width - 4 * dpr, 11 * dpr, dpr, "right");
    label(g, "newest ping on top", c.width / 2, 11 * dpr, dpr, "center");
    let mean = 0;
    for (let i = 0; i < n; i++) mean += (port[i] || 0) + (stbd[i] || 0);
    p.info = { bins: n, rows: p.rows, mean_level: mean / Math.max(1, 2 * n) };
    p.geometry = { top_px: top / dpr, row_px: (c.height - top) / H / dpr, center_px: c.width / 2 / dpr };
    p.infoEl.textContent = `${n} bins a side over ${R} m · ${p.rows} pings · t ${m.t.toFixed(2)} s`;
  },

  // Multibeam: the soundings across track, depth below the sensor down.
  async multibeam_sonar(p, m) {
    const d = m.data, c = p.canvas, dpr = fitCanvas(c, 2.2), g = c.getContext("2d");
    const pts = [];
    for (let i = 0; i < d.across_m.length; i++) if (d.across_m[i] !== null) pts.push([d.across_m[i], d.down_m[i], d.intensity[i] || 0]);
    const R = d.max_range_m;
    let xr = 1, zr = 1;
    for (const [x, z] of pts) { xr = Math.max(xr, Math.abs(x)); zr = Math.max(zr, z); }
    xr *= 1.1; zr *= 1.15;
    const pad = 26 * dpr;
    const px = (x) => c.width / 2 + x / xr * (c.width / 2 - pad), py = (z) => pad / 2 + z / zr * (c.height - 1.5 * pad);
    g.fillStyle = "#04080c"; g.fillRect(0, 0, c.width, c.height);
    g.strokeStyle = "rgba(223,232,238,0.25)"; g.lineWidth = dpr;
    const sx = niceStep(xr, 3), sz = niceStep(zr, 3);
    for (let x = -Math.floor(xr / sx) * sx; x <= xr; x += sx) { g.beginPath(); g.moveTo(px(x), py(0)); g.lineTo(px(x), py(zr)); g.stroke(); label(g, `${x}`, px(x), c.height - 4 * dpr, dpr, "center"); }
    for (let z = sz; z <= zr; z += sz) { g.beginPath(); g.moveTo(px(-xr), py(z)); g.lineTo(px(xr), py(z)); g.stroke(); label(g, `${z} m`, 2 * dpr, py(z) - 2 * dpr, dpr); }
    g.fillStyle = "#5d4a36"; g.beginPath(); g.moveTo(px(pts.length ? pts[0][0] : -xr), c.height - pad);
    for (const [x, z] of pts) g.lineTo(px(x), py(z));
    g.lineTo(px(pts.length ? pts[pts.length - 1][0] : xr), c.height - pad); g.closePath(); g.fill();
    for (const [x, z, v] of pts) { const [r, gg, b] = copper(80 + 0.7 * v); g.fillStyle = `rgb(${r},${gg},${b})`; g.fillRect(px(x) - 1.5 * dpr, py(z) - 1.5 * dpr, 3 * dpr, 3 * dpr); }
    g.fillStyle = "#f1c40f"; g.beginPath(); g.arc(px(0), py(0), 4 * dpr, 0, 2 * Math.PI); g.fill();
    label(g, "port", pad, 12 * dpr, dpr); label(g, "starboard", c.width - pad, 12 * dpr, dpr, "right");
    label(g, "across track (m)", c.width / 2, 12 * dpr, dpr, "center");
    const mid = pts.length ? pts.reduce((a, q) => (Math.abs(q[0]) < Math.abs(a[0]) ? q : a)) : null;
    p.info = { soundings: pts.length, beams: d.beams, nadir_down_m: mid ? mid[1] : null };
    p.infoEl.textContent = `${pts.length}/${d.beams} soundings, swath ${d.swath_deg}°, range ${R} m · t ${m.t.toFixed(2)} s`;
  },

  // Camera: RGB beside depth on a colour scale (with its bar in metres).
  async camera(p, m) {
    const d = m.data;
    const [rgb, depth] = await Promise.all([loadImage(d.rgb_png), decodePng(d.depth_png)]);
    const c = p.canvas, dpr = fitCanvas(c, 2 * d.width / d.height * 1.0 + 0.15), g = c.getContext("2d");
    const bar = 16 * dpr, gap = 4 * dpr;
    const w = (c.width - bar - 3 * gap) / 2, h = Math.min(c.height - 14 * dpr, w * d.height / d.width);
    g.fillStyle = "#04080c"; g.fillRect(0, 0, c.width, c.height);
    g.drawImage(rgb, 0, 0, w, h);
    const dimg = new ImageData(depth.width, depth.height);
    const R = d.max_range_m, unit = d.depth_unit_m || 0.001;
    let near = Infinity, hits = 0;
    for (let i = 0; i < depth.width * depth.height; i++) {
      const raw = depth.data[i * depth.channels];
      const z = raw * unit;
      const [r, gg, b] = raw === 0 ? [8, 16, 24] : ramp(z / R);
      if (raw) { hits++; near = Math.min(near, z); }
      dimg.data[4 * i] = r; dimg.data[4 * i + 1] = gg; dimg.data[4 * i + 2] = b; dimg.data[4 * i + 3] = 255;
    }
    const off = document.createElement("canvas"); off.width = depth.width; off.height = depth.height;
    off.getContext("2d").putImageData(dimg, 0, 0);
    g.drawImage(off, w + gap, 0, w, h);
    for (let y = 0; y < h; y++) { const [r, gg, b] = ramp(y / h); g.fillStyle = `rgb(${r},${gg},${b})`; g.fillRect(2 * w + 2 * gap, y, bar, 1); }
    // The bar runs from near (top) to the camera's range (bottom).
    label(g, "0 m", c.width - 2, 10 * dpr, dpr, "right");
    label(g, `${R} m`, c.width - 2, h + 11 * dpr, dpr, "right");
    label(g, "RGB", 4 * dpr, h + 11 * dpr, dpr); label(g, "depth", w + gap + 4 * dpr, h + 11 * dpr, dpr);
    p.geometry = { rgb_px: [0, 0, w / dpr, h / dpr], depth_px: [(w + gap) / dpr, 0, w / dpr, h / dpr] };
    p.info = { width: d.width, height: d.height, depth_hits: hits, nearest_m: Number.isFinite(near) ? near : null };
    p.infoEl.textContent = `${d.width}×${d.height}, hfov ${d.hfov_deg}°, nearest ${Number.isFinite(near) ? near.toFixed(2) + " m" : "–"} · t ${m.t.toFixed(2)} s`;
  },

  async lidar_3d(p, m) { p.cloud = cloudOf(m.data, false); drawCloud(p); p.infoEl.textContent = `${m.data.count} of ${m.data.total} points · t ${m.t.toFixed(2)} s · drag to turn, wheel to zoom`; },
  async rgbd_dense_cloud(p, m) { p.cloud = cloudOf(m.data, true); drawCloud(p); p.infoEl.textContent = `${m.data.count} of ${m.data.total} points · t ${m.t.toFixed(2)} s · drag to turn, wheel to zoom`; },

  // The planar lidar goes on the map (drawMoving asks lidarOnMap).
  async lidar_2d(p, m) {
    p.scan = m.data; p.info = { points: m.data.count };
    p.infoEl.textContent = `${m.data.count} returns of ${m.data.total} beams, drawn on the map · t ${m.t.toFixed(2)} s`;
    markDirty();
  },

  async depth(p, m) { numbers(p, m, [["depth", `${m.data.depth_m.toFixed(3)} m`], ["pressure", `${(m.data.pressure_pa / 1000).toFixed(2)} kPa`]]); },
  async imu(p, m) {
    const f = (v) => v.map((x) => x.toFixed(3)).join(", ");
    numbers(p, m, [["specific force", `${f(m.data.linear_acceleration)} m/s²`], ["rates", `${f(m.data.angular_velocity)} rad/s`]]);
  },
  async dvl(p, m) {
    const d = m.data;
    numbers(p, m, [["velocity", d.velocity_body ? `${d.velocity_body.map((x) => x.toFixed(3)).join(", ")} m/s` : "no lock"],
      ["altitude", d.altitude_m === null ? "–" : `${d.altitude_m.toFixed(2)} m`], ["bottom lock", d.bottom_lock ? "yes" : "no"],
      ["beams", d.beam_ranges_m.map((r) => (r === null ? "–" : r.toFixed(2))).join(", ") + " m"]]);
  },
};

function numbers(p, m, rows) {
  p.canvas.hidden = true;
  p.info = m.data;
  p.infoEl.innerHTML = "";
  const dl = document.createElement("dl");
  for (const [k, v] of rows) { const dt = document.createElement("dt"); dt.textContent = k; const dd = document.createElement("dd"); dd.textContent = v; dl.append(dt, dd); }
  const t = document.createElement("p"); t.textContent = `t ${m.t.toFixed(2)} s (body FRD)`;
  p.infoEl.append(dl, t);
}

// ---- point clouds: an orbit view -------------------------------------------------

function cloudOf(d, colour) {
  const n = d.count, xyz = d.xyz_cm, rgb = colour && d.rgb ? b64bytes(d.rgb) : null, lev = d.intensity ? b64bytes(d.intensity) : null;
  let r = 1;
  for (let i = 0; i < 3 * n; i++) r = Math.max(r, Math.abs(xyz[i]) / 100);
  return { n, xyz, rgb, lev, extent: r };
}

function attachOrbit(p) {
  p.orbit = { yaw: -0.6, pitch: 0.5, zoom: 1 };
  const c = p.canvas;
  let drag = null;
  c.addEventListener("pointerdown", (e) => { drag = [e.clientX, e.clientY]; c.setPointerCapture(e.pointerId); });
  c.addEventListener("pointermove", (e) => {
    if (!drag) return;
    p.orbit.yaw += (e.clientX - drag[0]) * 0.01;
    p.orbit.pitch = Math.max(-1.5, Math.min(1.5, p.orbit.pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY];
    drawCloud(p);
  });
  c.addEventListener("pointerup", () => { drag = null; });
  c.addEventListener("wheel", (e) => { e.preventDefault(); p.orbit.zoom = Math.max(0.2, Math.min(20, p.orbit.zoom * Math.exp(-e.deltaY * 0.001))); drawCloud(p); }, { passive: false });
}

// Orthographic view of base_link points: turned by yaw about z (up), then
// tilted by pitch; nearer points drawn last.
function drawCloud(p) {
  const cl = p.cloud;
  if (!cl) return;
  const c = p.canvas, dpr = fitCanvas(c, 1.6), g = c.getContext("2d");
  g.fillStyle = "#04080c"; g.fillRect(0, 0, c.width, c.height);
  const { yaw, pitch, zoom } = p.orbit;
  const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
  const s = zoom * Math.min(c.width, c.height) / (2.2 * cl.extent);
  const screen = (x, y, z) => {
    // Camera looks along the rotated +x; screen right is the rotated −y.
    const xr = cy * x - sy * y, yr = sy * x + cy * y;
    const depth = cp * xr + sp * z, up = -sp * xr + cp * z;
    return [c.width / 2 - yr * s, c.height / 2 - up * s, depth];
  };
  // Axes at the base link: x forward (red), y left (green), z up (blue), 1 m.
  for (const [v, col, name] of [[[1, 0, 0], "#e74c3c", "x"], [[0, 1, 0], "#2ecc71", "y"], [[0, 0, 1], "#3498db", "z"]]) {
    const [a, b] = screen(0, 0, 0), [u, w] = screen(...v);
    g.strokeStyle = col; g.lineWidth = 2 * dpr; g.beginPath(); g.moveTo(a, b); g.lineTo(u, w); g.stroke();
    label(g, name, u + 2 * dpr, w, dpr);
  }
  const order = [];
  for (let i = 0; i < cl.n; i++) {
    const [u, w, dz] = screen(cl.xyz[3 * i] / 100, cl.xyz[3 * i + 1] / 100, cl.xyz[3 * i + 2] / 100);
    order.push([dz, u, w, i]);
  }
  order.sort((a, b) => b[0] - a[0]);
  const r = Math.max(1, 1.6 * dpr);
  for (const [, u, w, i] of order) {
    if (cl.rgb) g.fillStyle = `rgb(${cl.rgb[3 * i]},${cl.rgb[3 * i + 1]},${cl.rgb[3 * i + 2]})`;
    else { const [a, b2, c2] = ramp(1 - (cl.lev ? cl.lev[i] / 255 : 0.5)); g.fillStyle = `rgb(${a},${b2},${c2})`; }
    g.fillRect(u - r / 2, w - r / 2, r, r);
  }
  label(g, `${(cl.extent).toFixed(1)} m extent · base_link FLU`, 4 * dpr, c.height - 4 * dpr, dpr);
  p.info = { points: cl.n, extent_m: cl.extent, yaw: p.orbit.yaw, pitch: p.orbit.pitch };
}

// ---- on the map: the planar lidar and the acoustic channel ------------------------

// Draws each open planar lidar's returns around its agent, widening the
// moving layer's box by each.
function lidarOnMap(g, T, dpr, cover) {
  const f = V.frame;
  if (!f || !f.agents) return;
  for (const p of panelState.values()) {
    if (!p.shown || p.kind !== "lidar_2d" || !p.scan) continue;
    const a = f.agents.find((x) => x.name === p.agent);
    if (!a) continue;
    const h = (a.heading_deg || 0) * Math.PI / 180, fx = Math.sin(h), fy = Math.cos(h);
    g.fillStyle = "#ff4d6d";
    const xyz = p.scan.xyz_cm;
    for (let i = 0; i < p.scan.count; i++) {
      const fwd = xyz[3 * i] / 100, left = xyz[3 * i + 1] / 100;
      // Forward is the heading; left is forward turned 90° anticlockwise.
      const x = a.p[0] + fwd * fx - left * fy, y = a.p[1] + fwd * fy + left * fx;
      const u = T.px(x), v = T.py(y);
      g.fillRect(u - 1.5 * dpr, v - 1.5 * dpr, 3 * dpr, 3 * dpr);
      cover(u, v, 3 * dpr);
    }
  }
}

// Who heard whom in the last seconds: a line from sender to receiver,
// fading with age, arrowhead at the receiver.
function acousticOnMap(g, T, dpr, cover) {
  const f = V.frame;
  V.acoustic = 0;
  if (!f) return;
  // The simulator's frames name agents; a swarm's frames index points.
  const pairs = [];
  if (f.acoustic && f.agents) {
    const at = new Map(f.agents.map((a) => [a.name, a.p]));
    for (const l of f.acoustic) pairs.push([at.get(l.from), at.get(l.to), l.heard]);
  } else if (f.links && f.points) {
    const P = (i) => (i < f.points.x.length ? [f.points.x[i], f.points.y[i]] : undefined);
    for (const [from, to, , heard] of f.links) pairs.push([P(from), P(to), heard]);
  }
  for (const [a, b, heard] of pairs) {
    if (!a || !b) continue;
    const age = Math.max(0, f.t - heard);
    const alpha = Math.max(0.15, 1 - age / 5);
    const [x0, y0, x1, y1] = [T.px(a[0]), T.py(a[1]), T.px(b[0]), T.py(b[1])];
    g.strokeStyle = `rgba(0, 229, 255, ${alpha})`; g.lineWidth = 1.5 * dpr;
    g.beginPath(); g.moveTo(x0, y0); g.lineTo(x1, y1); g.stroke();
    const ang = Math.atan2(y1 - y0, x1 - x0), k = 8 * dpr;
    g.fillStyle = g.strokeStyle; g.beginPath(); g.moveTo(x1, y1);
    g.lineTo(x1 - k * Math.cos(ang - 0.4), y1 - k * Math.sin(ang - 0.4));
    g.lineTo(x1 - k * Math.cos(ang + 0.4), y1 - k * Math.sin(ang + 0.4)); g.closePath(); g.fill();
    cover(x0, y0, 2 * dpr); cover(x1, y1, k);
    V.acoustic++;
  }
}
