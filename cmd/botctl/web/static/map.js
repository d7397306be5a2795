'use strict';
// The fleet map: a plain <canvas> (nothing fetched, no tiles: it works on
// a robot network without internet) drawing, in one world frame at a
// time, every robot the list shows with a short trail, the robots'
// geofences and, under a simulated rover, its yard; over it, an SVG layer
// (plan layer below) draws the open robot's mission: its waypoints and a
// flight plan's zones, rally points and home, with the progress. Robots in a local frame (x east, y north,
// metres) and robots with a latitude and longitude cannot share axes: the
// frame selector picks which are drawn (a UAV reports both, and is drawn
// in either). A MAVLink vehicle's local goals are north/east of home
// (NED): they are turned to east/north as its pose is.
// Drag to pan, wheel to zoom, double-click to fit; a click on a robot
// opens its tree.
(function () {
  const $ = (id) => document.getElementById(id);
  const canvas = $('map');
  const ctx = canvas.getContext('2d');
  const MODE_COLORS = {
    RUNNING: '#f5a524', PAUSED: '#c9a13b', IDLE: '#79b8ff', STARTING: '#58a6ff',
    FAILSAFE: '#e07b39', ESTOP: '#ff3b3b',
  };
  const OFFLINE = '#596273';

  const M = {
    frame: '',           // 'local' or 'global'; '' until robots come
    userFrame: false,
    scale: 1,            // px per unit
    ox: 0, oy: 0,        // canvas px of the world origin
    userMoved: false,
    drawn: [],           // [{id, x, y}] canvas px of the robots drawn (also the click targets)
    waypoints: [],       // [{frame, x, y, name, node}] of the selected robot's mission, as the tree gives them
    plan: null,          // the selected robot's flight plan (tree.plan): {home, polygons, circles, rally, left_out}
    breaches: new Map(), // mission id → zone name → the latest breach of it (the selected robot's; the history may come before the tree)
    statusOf: null,      // a node's status letter, from the tree view (botd:status)
    tree: null,
    world: null,         // the selected robot's yard (a simulated rover): {bounds, boxes}
    goalsNED: false,     // the selected robot's local goals are north/east (a MAVLink vehicle)
  };

  const fleet = () => window.BotdFleet;

  // The global frame is drawn equirectangular around the robots' mean
  // latitude: x = lon·cos(lat0), y = lat (degrees), so that shapes keep
  // their proportions at the scale of a site.
  let cosLat = 1;
  const M_PER_DEG = 111320; // metres per degree of latitude (the scale bar's too)
  function project(frame, x, y) {
    return frame === 'global' ? [x * cosLat, y] : [x, y];
  }
  const toPx = (wx, wy) => [M.ox + wx * M.scale, M.oy - wy * M.scale];

  // poseIn is a robot's pose in a frame: its pose, or its local one
  // beside a global pose (a UAV); null when it has none there.
  function poseIn(r, frame) {
    if (r.pose && r.pose.f === frame) return r.pose;
    if (r.loc && r.loc.f === frame) return r.loc;
    return null;
  }

  // robotsInFrame is [{r, p}]: the robots with a pose in the map's frame.
  function robotsInFrame() {
    const out = [];
    const f = fleet();
    if (!f) return out;
    for (const r of f.view()) { const p = poseIn(r, M.frame); if (p) out.push({ r, p }); }
    return out;
  }

  // wpXY is a waypoint in the map's axes (east, north).
  function wpXY(w) { return w.frame === 'local' && M.goalsNED ? [w.y, w.x] : [w.x, w.y]; }

  function chooseFrame() {
    const f = fleet();
    if (!f) return;
    const n = { local: 0, global: 0 };
    for (const r of f.view()) for (const fr of ['local', 'global']) if (poseIn(r, fr)) n[fr]++;
    const sel = $('map-frame');
    sel.options[0].textContent = `local x/y (${n.local})`;
    sel.options[1].textContent = `lat/lon (${n.global})`;
    if (!M.userFrame) {
      // On a tie (a UAV reports both), the frame of the open robot's mission.
      const want = n.global > n.local || (n.global === n.local && missionFrame() === 'global') ? 'global' : 'local';
      if (want !== M.frame) { M.frame = want; M.userMoved = false; }
    }
    sel.value = M.frame;
    const lats = [];
    if (M.frame === 'global') for (const { p } of robotsInFrame()) lats.push(p.y);
    if (M.frame === 'global' && !lats.length) for (const [lat] of planPoints()) lats.push(lat);
    if (lats.length) cosLat = Math.cos((lats.reduce((a, b) => a + b, 0) / lats.length) * Math.PI / 180) || 1;
  }

  // missionFrame is the frame of the open robot's mission: 'global' with
  // a flight plan or a latitude/longitude waypoint, 'local' with local
  // waypoints only, '' without either.
  function missionFrame() {
    if (M.plan || M.waypoints.some((w) => w.frame === 'global')) return 'global';
    return M.waypoints.length ? 'local' : '';
  }

  // planPoints is every [lat, lon] of the flight plan (home, corners,
  // circles' centres, rally points), for fitting the view.
  function planPoints() {
    const g = M.plan, out = [];
    if (!g) return out;
    if (g.home) out.push(g.home);
    for (const p of g.polygons) out.push(...p.points);
    for (const c of g.circles) {
      const dLat = c.radius / M_PER_DEG;
      out.push([c.center[0] - dLat, c.center[1]], [c.center[0] + dLat, c.center[1]]);
    }
    out.push(...g.rally);
    return out;
  }

  function fences() {
    const f = fleet();
    const out = [];
    if (!f) return out;
    const used = new Set();
    for (const r of f.view()) if (r.fence) used.add(r.fence);
    for (const k of used) {
      const g = f.fences.get(k);
      if (g && g.frame === M.frame && Array.isArray(g.points)) out.push(g);
    }
    return out;
  }

  // fit frames the robots, fences and waypoints of the frame.
  function fit() {
    const pts = [];
    for (const { r, p } of robotsInFrame()) {
      pts.push(project(M.frame, p.x, p.y));
      if (r.pose === p) for (const q of r.trail || []) pts.push(project(M.frame, q[0], q[1]));
    }
    for (const g of fences()) for (const p of g.points) pts.push(M.frame === 'global' ? project('global', p[1], p[0]) : p);
    for (const w of M.waypoints) if (w.frame === M.frame) pts.push(project(M.frame, ...wpXY(w)));
    if (M.frame === 'global') {
      for (const [lat, lon] of planPoints()) pts.push(project('global', lon, lat));
      // A circle is as wide as it is high (about: cosLat is the map's).
      if (M.plan) for (const c of M.plan.circles) {
        const d = c.radius / M_PER_DEG;
        const [x, y] = project('global', c.center[1], c.center[0]);
        pts.push([x - d, y], [x + d, y]);
      }
    }
    if (M.world && M.frame === 'local') { const b = M.world.bounds; pts.push([b.min_x, b.min_y], [b.max_x, b.max_y]); }
    const W = canvas.width, H = canvas.height;
    if (!pts.length) { M.scale = M.frame === 'global' ? 1e5 : 20; M.ox = W / 2; M.oy = H / 2; return; }
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const [x, y] of pts) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    const minSpan = M.frame === 'global' ? 2e-4 : 2;
    const sx = Math.max(x1 - x0, minSpan), sy = Math.max(y1 - y0, minSpan);
    M.scale = Math.min((W - 40) / sx, (H - 40) / sy);
    M.ox = W / 2 - ((x0 + x1) / 2) * M.scale;
    M.oy = H / 2 + ((y0 + y1) / 2) * M.scale;
  }

  function sizeCanvas() {
    const r = canvas.getBoundingClientRect();
    const w = Math.max(100, Math.round(r.width)), h = Math.max(100, Math.round(r.height));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; return true; }
    return false;
  }

  function draw() {
    sizeCanvas();
    chooseFrame();
    if (!M.userMoved) fit();
    const W = canvas.width, H = canvas.height;
    ctx.clearRect(0, 0, W, H);
    ctx.fillStyle = '#0f141b';
    ctx.fillRect(0, 0, W, H);
    drawScale(W, H);
    if (M.world && M.frame === 'local') drawWorld(M.world);

    // fences
    ctx.lineWidth = 1.5;
    for (const g of fences()) {
      ctx.strokeStyle = '#d05ce3';
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      g.points.forEach((p, i) => {
        const [wx, wy] = M.frame === 'global' ? project('global', p[1], p[0]) : p;
        const [px, py] = toPx(wx, wy);
        i ? ctx.lineTo(px, py) : ctx.moveTo(px, py);
      });
      ctx.closePath();
      ctx.stroke();
      ctx.setLineDash([]);
    }

    // trails, then robots (the selected one last, on top)
    const selected = fleet() ? fleet().selected() : '';
    const robots = robotsInFrame();
    ctx.lineWidth = 1;
    for (const { r, p } of robots) {
      const t = r.pose === p ? r.trail || [] : [];
      if (t.length < 2) continue;
      ctx.strokeStyle = color(r);
      ctx.globalAlpha = 0.45;
      ctx.beginPath();
      t.forEach((p, i) => {
        const [px, py] = toPx(...project(M.frame, p[0], p[1]));
        i ? ctx.lineTo(px, py) : ctx.moveTo(px, py);
      });
      ctx.stroke();
      ctx.globalAlpha = 1;
    }
    const drawn = [];
    let sel = null;
    for (const { r, p } of robots) {
      const [px, py] = toPx(...project(M.frame, p.x, p.y));
      drawn.push({ id: r.id, x: Math.round(px), y: Math.round(py) });
      if (r.id === selected) { sel = [r, p, px, py]; continue; }
      robot(r, p, px, py, false);
    }
    if (sel) robot(...sel, true);
    M.drawn = drawn;
    canvas.dataset.drawn = String(drawn.length);
    canvas.dataset.frame = M.frame;
    $('map-info').textContent = robots.length ? '' : 'no robot reports a pose in this frame';
    drawPlan(W, H, sel ? [sel[2], sel[3]] : null);
  }

  function color(r) {
    if (r.link === 'offline') return OFFLINE;
    if (r.estop) return MODE_COLORS.ESTOP;
    return MODE_COLORS[r.mode] || '#dde3ec';
  }

  function robot(r, pose, px, py, selected) {
    const c = color(r);
    ctx.beginPath();
    ctx.arc(px, py, selected ? 6 : 4, 0, 2 * Math.PI);
    if (r.link === 'online') { ctx.fillStyle = c; ctx.fill(); }
    else { ctx.strokeStyle = c; ctx.lineWidth = 1.5; ctx.stroke(); }
    if (typeof pose.h === 'number') {
      ctx.strokeStyle = c;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(px, py);
      ctx.lineTo(px + Math.cos(pose.h) * 10, py - Math.sin(pose.h) * 10);
      ctx.stroke();
    }
    if (selected) {
      ctx.strokeStyle = '#58a6ff';
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(px, py, 10, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.fillStyle = '#dde3ec';
      ctx.font = '11px sans-serif';
      ctx.fillText(r.id, px + 12, py + 4);
    }
  }

  // drawWorld draws a simulated rover's yard: its walls and boxes.
  function drawWorld(w) {
    const rect = (b) => {
      const [x0, y0] = toPx(b.min_x, b.max_y), [x1, y1] = toPx(b.max_x, b.min_y);
      return [x0, y0, x1 - x0, y1 - y0];
    };
    ctx.strokeStyle = '#8a95a8';
    ctx.lineWidth = 3;
    ctx.strokeRect(...rect(w.bounds));
    ctx.font = '10px sans-serif';
    for (const b of Array.isArray(w.boxes) ? w.boxes : []) {
      const r = rect(b);
      ctx.fillStyle = '#3a4352';
      ctx.fillRect(...r);
      ctx.strokeStyle = '#8a95a8';
      ctx.lineWidth = 1;
      ctx.strokeRect(...r);
      if (b.name) { ctx.fillStyle = '#8a95a8'; ctx.fillText(b.name, r[0] + 2, r[1] - 3); }
    }
  }

  // drawScale draws a scale bar of a round length.
  function drawScale(W, H) {
    const unitsPerPx = 1 / M.scale;
    const metresPerUnit = M.frame === 'global' ? 111320 : 1;
    const target = 80 * unitsPerPx * metresPerUnit;
    const p = Math.pow(10, Math.floor(Math.log10(target)));
    const len = [1, 2, 5, 10].map((k) => k * p).filter((v) => v <= target).pop() || p;
    const px = len / metresPerUnit * M.scale;
    ctx.strokeStyle = '#8a95a8';
    ctx.fillStyle = '#8a95a8';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(10, H - 12); ctx.lineTo(10 + px, H - 12);
    ctx.moveTo(10, H - 16); ctx.lineTo(10, H - 8);
    ctx.moveTo(10 + px, H - 16); ctx.lineTo(10 + px, H - 8);
    ctx.stroke();
    ctx.font = '10px sans-serif';
    ctx.fillText(len >= 1000 ? len / 1000 + ' km' : len + ' m', 14 + px, H - 9);
  }

  // ---- the selected robot's mission ----

  // Waypoints are the goals of the mission's motion leaves, in tree
  // order (the tree topic carries a node's goal when its params give
  // literal coordinates); a flight plan's zones, rally points and home
  // come with the tree too (tree.plan, PROTOCOL.md).
  function setTree(d) {
    if (!M.tree || !d || M.tree.mission !== d.mission) M.userMoved = false; // a new mission is framed
    M.tree = d;
    const out = [];
    for (const n of (d && Array.isArray(d.nodes) ? d.nodes : [])) {
      const g = n && n.goal;
      if (g && typeof g.x === 'number' && typeof g.y === 'number') out.push({ frame: g.frame || 'local', x: g.x, y: g.y, name: n.name || n.type, node: n.index });
    }
    M.plan = readPlan(d && d.plan);
    // A plan the autopilot flies: its nodes give no waypoints, the plan's
    // mission items do, and the vehicle's MISSION_CURRENT (KEY.mission_item)
    // says which one it flies.
    if (M.plan && M.plan.mission.length && !out.some((w) => w.frame === 'global')) {
      for (const it of M.plan.mission) out.push({ frame: 'global', x: it.lon, y: it.lat, name: `mission item ${it.seq}`, seq: it.seq });
    }
    M.waypoints = out;
    schedule();
  }

  // readPlan keeps what is well formed of a tree's plan (the dashboard
  // bounded it already: PlanGeometry.Bound), or null.
  function readPlan(g) {
    if (!g || typeof g !== 'object') return null;
    const num = (v) => typeof v === 'number' && isFinite(v);
    const ll = (a, n) => Array.isArray(a) && a.length >= n && a.slice(0, n).every(num);
    const str = (v) => (typeof v === 'string' ? v : '');
    const out = {
      home: ll(g.home, 2) ? g.home : null,
      polygons: (Array.isArray(g.polygons) ? g.polygons : [])
        .filter((p) => p && Array.isArray(p.points) && p.points.length >= 3 && p.points.every((c) => ll(c, 2)))
        .map((p) => ({ name: str(p.name), inclusion: p.inclusion === true, points: p.points })),
      circles: (Array.isArray(g.circles) ? g.circles : [])
        .filter((c) => c && ll(c.center, 2) && num(c.radius) && c.radius > 0)
        .map((c) => ({ name: str(c.name), inclusion: c.inclusion === true, center: c.center, radius: c.radius })),
      rally: (Array.isArray(g.rally) ? g.rally : []).filter((r) => ll(r, 2)),
      mission: (Array.isArray(g.mission) ? g.mission : []).filter((it) => it && Number.isInteger(it.seq) && num(it.lat) && num(it.lon)),
      leftOut: g.left_out && typeof g.left_out === 'object' ? g.left_out : null,
    };
    return out.home || out.polygons.length || out.circles.length || out.rally.length || out.mission.length ? out : null;
  }

  // ---- the plan layer: the open robot's mission as SVG over the canvas ----
  // Zones (kept in: green, kept out: red; polygons and circles), the path
  // through the waypoints, each waypoint numbered, the rally points (R) and
  // the plan's home (H). The elements are made when the mission or the
  // frame changes, placed when the view moves, and the progress is set at
  // every draw (only what changed is touched): a waypoint whose node
  // succeeded is reached (filled), the one whose node runs is the current
  // one (ringed in amber, with a line from the vehicle to it). SVG, so that
  // every shape is an element with data attributes (what a test or an
  // inspector reads).
  const svg = $('map-plan');
  const SVGNS = 'http://www.w3.org/2000/svg';
  // built: the mission and frame the elements were made for; placed: the
  // view they were placed in; place: how to place each element (px from
  // world); marks: the waypoints' markers.
  const P = { built: null, placed: '', place: [], marks: [], zones: [], path: null, done: null, cur: null, leg: null, doneTo: -2 };

  function el(tag, attrs, parent, title) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (title) { const t = document.createElementNS(SVGNS, 'title'); t.textContent = title; e.append(t); }
    parent.append(e);
    return e;
  }

  // ll is a plan's [lat, lon] in canvas pixels (the global frame).
  const ll = (c) => toPx(...project('global', c[1], c[0]));
  const fmt = (v) => Math.round(v * 10) / 10;
  const ptsAttr = (pts) => pts.map(([x, y]) => fmt(x) + ',' + fmt(y)).join(' ');
  const setXY = (e, ax, ay, [x, y], dx = 0, dy = 0) => { e.setAttribute(ax, fmt(x + dx)); e.setAttribute(ay, fmt(y + dy)); };

  function buildPlan() {
    svg.replaceChildren();
    P.place = []; P.marks = []; P.zones = []; P.path = P.done = P.cur = P.leg = null; P.doneTo = -2;
    const g = M.plan, put = (f) => P.place.push(f);
    if (g && M.frame === 'global') {
      const zones = el('g', { id: 'map-plan-zones' }, svg);
      g.polygons.forEach((p, i) => {
        const e = el('polygon', { class: 'zone ' + (p.inclusion ? 'incl' : 'excl'), 'data-kind': 'polygon', 'data-index': i,
          'data-inclusion': p.inclusion, 'data-zone': p.name }, zones, p.name);
        P.zones.push({ el: e, name: p.name, title: p.name, b: null });
        put(() => e.setAttribute('points', ptsAttr(p.points.map(ll))));
      });
      g.circles.forEach((c, i) => {
        const e = el('circle', { class: 'zone ' + (c.inclusion ? 'incl' : 'excl'), 'data-kind': 'circle', 'data-index': i,
          'data-inclusion': c.inclusion, 'data-zone': c.name }, zones, `${c.name}: ${c.radius} m`);
        P.zones.push({ el: e, name: c.name, title: `${c.name}: ${c.radius} m`, b: null });
        put(() => { setXY(e, 'cx', 'cy', ll(c.center)); e.setAttribute('r', fmt(Math.max(1, c.radius / M_PER_DEG * M.scale))); });
      });
    }
    const wps = M.waypoints.filter((w) => w.frame === M.frame);
    if (wps.length) {
      const wpx = (p) => toPx(...project(M.frame, ...wpXY(p)));
      P.done = el('polyline', { class: 'path done', points: '' }, svg);
      P.path = el('polyline', { id: 'map-plan-path', class: 'path', 'data-points': wps.length }, svg);
      P.leg = el('line', { id: 'map-plan-leg', class: 'leg', visibility: 'hidden' }, svg);
      const marks = el('g', { id: 'map-plan-waypoints' }, svg);
      const label = wps.length <= 300; // beyond, numbers would cover the map
      wps.forEach((p, i) => {
        const m = { w: p, n: i + 1, s: '', x: 0, y: 0 };
        const by = p.seq === undefined ? { 'data-node': p.node } : { 'data-seq': p.seq };
        m.el = el('rect', { class: 'wp', 'data-n': i + 1, ...by, 'data-status': 'I', width: 7, height: 7 }, marks, `${i + 1}: ${p.name}`);
        if (label) { m.label = el('text', { class: 'wp-n' }, marks); m.label.textContent = String(i + 1); }
        P.marks.push(m);
      });
      put(() => {
        for (const m of P.marks) {
          [m.x, m.y] = wpx(m.w);
          setXY(m.el, 'x', 'y', [m.x, m.y], -3.5, -3.5);
          if (m.label) setXY(m.label, 'x', 'y', [m.x, m.y], 5, -5);
        }
        P.path.setAttribute('points', ptsAttr(P.marks.map((m) => [m.x, m.y])));
        P.doneTo = -2;
      });
      P.cur = el('circle', { id: 'map-plan-current', class: 'current', r: 8, visibility: 'hidden' }, svg);
    }
    if (g && M.frame === 'global') {
      const pins = el('g', { id: 'map-plan-rally' }, svg);
      g.rally.forEach((r, i) => {
        const t = `rally point ${i + 1}` + (typeof r[2] === 'number' ? `: ${r[2]} m above home` : '');
        const e = el('polygon', { class: 'rally', 'data-index': i }, pins, t);
        const label = el('text', { class: 'mark' }, pins);
        label.textContent = 'R';
        put(() => { const [x, y] = ll(r); e.setAttribute('points', ptsAttr([[x, y - 7], [x + 7, y], [x, y + 7], [x - 7, y]])); setXY(label, 'x', 'y', [x, y]); });
      });
      if (g.home) {
        const e = el('circle', { id: 'map-plan-home', class: 'home', r: 7 }, svg, 'the plan\'s home');
        const label = el('text', { class: 'mark' }, svg);
        label.textContent = 'H';
        put(() => { setXY(e, 'cx', 'cy', ll(g.home)); setXY(label, 'x', 'y', ll(g.home)); });
      }
    }
  }

  // statusOf is a waypoint's progress as a status letter: its node's, or
  // for a mission item the autopilot flies, from the item it flies now
  // (before it: reached, S; it: current, R).
  function statusOf(w) {
    if (w.seq === undefined) return (M.statusOf && typeof w.node === 'number' && M.statusOf(w.node)) || 'I';
    if (typeof M.missionItem !== 'number') return 'I';
    return w.seq < M.missionItem ? 'S' : w.seq === M.missionItem ? 'R' : 'I';
  }

  // missionItem is the item a vehicle's autopilot flies (MISSION_CURRENT):
  // the first KEY.mission_item of the blackboard, or undefined.
  function missionItem(bb) {
    for (const x of bb && Array.isArray(bb.values) ? bb.values : []) {
      if (x && typeof x.key === 'string' && x.key.endsWith('.mission_item') && Number.isInteger(x.value)) return x.value;
    }
    return undefined;
  }

  // drawPlan brings the layer up to date; vehicle is the open robot's
  // position in canvas pixels (null when not drawn in this frame).
  function drawPlan(W, H, vehicle) {
    const t0 = performance.now();
    const built = [M.tree, M.frame];
    if (!P.built || built.some((v, i) => v !== P.built[i])) { buildPlan(); P.built = built; P.placed = ''; }
    const view = [W, H, M.scale, M.ox, M.oy, cosLat, M.goalsNED].join(',');
    if (view !== P.placed) {
      svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
      for (const f of P.place) f();
      P.placed = view;
    }
    // The progress: reached, failed, current.
    let cur = null, reached = 0, last = -1;
    P.marks.forEach((m, i) => {
      const s = statusOf(m.w);
      if (s !== m.s) {
        m.el.classList.toggle('reached', s === 'S');
        m.el.classList.toggle('failed', s === 'F' || s === 'E');
        m.el.setAttribute('data-status', s);
        m.s = s;
      }
      if (s === 'S') { reached++; last = i; }
      if (s === 'R' && !cur) cur = m;
    });
    if (P.done && last !== P.doneTo) {
      P.done.setAttribute('points', last >= 0 ? ptsAttr(P.marks.slice(0, last + 1).map((m) => [m.x, m.y])) : '');
      P.doneTo = last;
    }
    if (P.cur) {
      P.cur.setAttribute('visibility', cur ? 'visible' : 'hidden');
      if (cur) {
        setXY(P.cur, 'cx', 'cy', [cur.x, cur.y]);
        P.cur.setAttribute('data-n', cur.n); P.cur.setAttribute('data-name', cur.w.name);
        if (cur.w.seq === undefined) P.cur.setAttribute('data-node', cur.w.node); else P.cur.setAttribute('data-seq', cur.w.seq);
      } else for (const a of ['data-n', 'data-node', 'data-seq', 'data-name']) P.cur.removeAttribute(a);
    }
    if (P.leg) {
      const on = !!(cur && vehicle);
      P.leg.setAttribute('visibility', on ? 'visible' : 'hidden');
      if (on) { setXY(P.leg, 'x1', 'y1', vehicle); setXY(P.leg, 'x2', 'y2', [cur.x, cur.y]); }
    }
    svg.dataset.reached = String(reached);
    // A zone the mission breached (a geofence.breach naming it) is marked,
    // with the robot's message on hover.
    const breached = (M.tree && M.breaches.get(M.tree.mission)) || new Map();
    for (const z of P.zones) {
      const b = breached.get(z.name) || null;
      if (b === z.b) continue;
      z.b = b;
      z.el.classList.toggle('breached', !!b);
      z.el.setAttribute('data-breached', b ? 'true' : 'false');
      z.el.querySelector('title').textContent = b ? `${z.title}\nbreached: ${b.message || ''}` : z.title;
    }
    // The line under the map.
    const parts = [];
    const g = M.plan;
    if (g) {
      const z = g.polygons.length + g.circles.length;
      parts.push(`plan: ${z} zone${z === 1 ? '' : 's'}, ${g.rally.length} rally point${g.rally.length === 1 ? '' : 's'}`);
      const lo = g.leftOut;
      if (lo && (lo.zones || lo.rally)) parts.push(`${lo.zones || 0} zones (${lo.corners || 0} corners) and ${lo.rally || 0} rally points not shown (bounded)`);
      if (lo && lo.mission) parts.push(`the last ${lo.mission} mission items not shown (bounded)`);
      if (g.mission.length && P.marks.some((m) => m.w.seq !== undefined)) parts.push('flown by the autopilot');
      if (M.frame !== 'global') parts.push('drawn in lat/lon');
    }
    if (P.marks.length) parts.push(`${reached}/${P.marks.length} waypoints reached` + (cur ? ` · now ${cur.n}: ${cur.w.name}` : ''));
    if (breached.size) parts.push('breached: ' + [...breached.keys()].join(', '));
    const info = parts.join(' · ');
    if ($('map-plan-info').textContent !== info) $('map-plan-info').textContent = info;
    M.planMs = performance.now() - t0;
    M.maxPlanMs = Math.max(M.maxPlanMs || 0, M.planMs);
  }

  // ---- interaction ----

  let drag = null;
  let dragged = false; // the click that ends a drag opens nothing
  canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.offsetX, y: ev.offsetY, ox: M.ox, oy: M.oy, moved: false }; });
  window.addEventListener('mouseup', () => { dragged = !!(drag && drag.moved); drag = null; });
  canvas.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const dx = ev.offsetX - drag.x, dy = ev.offsetY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (drag.moved) { M.ox = drag.ox + dx; M.oy = drag.oy + dy; M.userMoved = true; schedule(); }
  });
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const k = ev.deltaY < 0 ? 1.2 : 1 / 1.2;
    M.ox = ev.offsetX - (ev.offsetX - M.ox) * k;
    M.oy = ev.offsetY - (ev.offsetY - M.oy) * k;
    M.scale *= k;
    M.userMoved = true;
    schedule();
  }, { passive: false });
  canvas.addEventListener('dblclick', () => { M.userMoved = false; schedule(); });
  canvas.addEventListener('click', (ev) => {
    if (dragged) { dragged = false; return; }
    const id = hit(ev.offsetX, ev.offsetY);
    if (id && fleet()) { fleet().open(id); fleet().scrollTo(id); }
  });
  $('map-frame').addEventListener('change', (ev) => { M.frame = ev.target.value; M.userFrame = true; M.userMoved = false; schedule(); });
  $('map-fit').addEventListener('click', () => { M.userMoved = false; schedule(); });

  // hit is the robot drawn nearest to (x, y), within 10 px.
  function hit(x, y) {
    let best = '', bd = 100;
    for (const d of M.drawn) {
      const dd = (d.x - x) ** 2 + (d.y - y) ** 2;
      if (dd <= bd) { bd = dd; best = d.id; }
    }
    return best;
  }

  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      const t0 = performance.now();
      try { draw(); } catch (e) { console.error(e); }
      M.drawMs = performance.now() - t0;
      M.maxDrawMs = Math.max(M.maxDrawMs || 0, M.drawMs);
      M.draws = (M.draws || 0) + 1;
    });
  }

  if (fleet()) fleet().onChange(schedule);
  window.addEventListener('resize', schedule);
  window.addEventListener('botd:tree', (ev) => setTree(ev.detail));
  window.addEventListener('botd:select', () => { M.waypoints = []; M.plan = null; M.tree = null; M.breaches.clear(); M.statusOf = null; M.missionItem = undefined; M.world = null; M.goalsNED = false; schedule(); });
  window.addEventListener('botd:status', (ev) => { M.statusOf = ev.detail && ev.detail.statusOf; schedule(); });
  // A breach of a zone in one of the open robot's missions (bounded: the
  // last 8 missions, 64 zones each).
  window.addEventListener('botd:breach', (ev) => {
    const e = ev.detail || {};
    const zone = e.data && typeof e.data.zone === 'string' ? e.data.zone : '';
    if (!zone || typeof e.mission !== 'string' || !e.mission) return;
    let m = M.breaches.get(e.mission);
    if (!m) {
      if (M.breaches.size >= 8) M.breaches.delete(M.breaches.keys().next().value);
      M.breaches.set(e.mission, (m = new Map()));
    }
    if (m.size >= 64 && !m.has(zone)) return;
    m.set(zone, { message: typeof e.message === 'string' ? e.message.slice(0, 300) : '' });
    schedule();
  });
  window.addEventListener('botd:blackboard', (ev) => {
    const k = missionItem(ev.detail);
    if (k !== M.missionItem) { M.missionItem = k; schedule(); }
  });
  window.addEventListener('botd:factsheet', (ev) => {
    const d = ev.detail || {};
    M.world = d.world && d.world.bounds ? d.world : null;
    M.goalsNED = !!d.goals_ned;
    M.userMoved = false;
    schedule();
  });

  // The test hook: the robots drawn, in canvas pixels.
  // waypoints are in the map's axes (east, north); world is the yard drawn.
  window.BotdMap = { drawn: () => M.drawn.slice(), frame: () => M.frame, redraw: schedule,
    waypoints: () => M.waypoints.map((w) => { const [x, y] = wpXY(w); return { frame: w.frame, x, y, name: w.name }; }),
    world: () => (M.world && M.frame === 'local' ? M.world : null), toPx: (x, y) => toPx(...project(M.frame, x, y)),
    stats: () => ({ drawMs: M.drawMs, maxDrawMs: M.maxDrawMs, draws: M.draws, planMs: M.planMs, maxPlanMs: M.maxPlanMs }) };
  schedule();
})();
