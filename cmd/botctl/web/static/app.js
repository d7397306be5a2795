'use strict';
// The dashboard page: one server-sent-event stream per robot, REST calls
// for commands. Every handler is wrapped so that an unexpected payload is
// shown in the event log instead of breaking the page.
(function () {
  const $ = (id) => document.getElementById(id);
  const MAX_LOG = 500;

  const S = {
    robot: '',        // selected robot
    es: null,         // EventSource
    robots: [],
    state: null,
    conn: '',
    bb: null, bbAt: 0,
    eventIDs: new Set(),
    problems: 0,
    autoPicked: false,
  };

  const tree = new TreeView($('tree'), {
    onZoom: (k) => { $('zoom').textContent = Math.round(k * 100) + '%'; },
    onLayout: (tv) => {
      const h = tv.hiddenCount();
      $('collapsed-info').textContent = h ? `· ${h} in collapsed subtrees (+ to expand)` : '';
    },
    onSelect: (n, status) => {
      logLocal('info', 'node', `#${n.index} ${n.type}${n.name ? ' "' + n.name + '"' : ''}: ${status}`, n.index);
      window.dispatchEvent(new CustomEvent('botd:node', { detail: n })); // the debugger (debug.js)
    },
  });
  const chart = new TickChart($('chart'));

  // ---- robot selection and the stream ----

  function robotFromURL() {
    const m = location.pathname.match(/^\/robot\/([^/]+)\/?$/);
    if (m) { try { return decodeURIComponent(m[1]); } catch (e) { return ''; } }
    return new URLSearchParams(location.search).get('robot') || '';
  }

  function select(robot, how) {
    if (!robot || robot === S.robot) return;
    S.robot = robot;
    const path = '/robot/' + encodeURIComponent(robot);
    if (how !== 'url' && location.pathname !== path) history.replaceState(null, '', path);
    resetRobotView();
    renderRobots();
    window.dispatchEvent(new CustomEvent('botd:select', { detail: robot }));
    connect();
  }
  // The fleet list and the map open a robot's tree with it.
  window.botdSelect = (robot) => select(robot);

  function resetRobotView() {
    S.state = null; S.conn = ''; S.bb = null; S.eventIDs.clear(); S.problems = 0;
    renderFailure();
    tree.setTree(null);
    $('collapsed-info').textContent = '';
    $('tree-empty').hidden = false;
    $('tree-empty').textContent = S.robot ? `Waiting for ${S.robot}'s tree…` : 'Select a robot.';
    $('tree-info').textContent = '';
    $('log').textContent = '';
    $('history-note').textContent = S.robot ? 'asking for the kept events…' : '';
    $('history-note').dataset.state = '';
    $('problem-count').textContent = '';
    $('kf-state').textContent = '';
    chart.clear();
    renderBB();
    renderHeader();
  }

  function toLogin() {
    location.assign('/login?next=' + encodeURIComponent(location.pathname + location.search));
  }

  function connect() {
    if (S.es) S.es.close();
    // With the fleet list (fleet.js) the list comes on its own stream.
    const q = new URLSearchParams();
    if (S.robot) q.set('robot', S.robot);
    if (window.BotdFleet) q.set('list', '0');
    const es = new EventSource('/api/stream' + (q.size ? '?' + q : ''));
    S.es = es;
    es.onopen = () => { if (es === S.es) setLink('live'); };
    es.onerror = () => {
      if (es !== S.es) return;
      setLink('reconnecting…');
      // A stream refused for want of a session is not retried by the
      // browser: ask whether that is why.
      if (es.readyState === EventSource.CLOSED) {
        fetch('/api/robots', { credentials: 'same-origin' }).then((r) => { if (r.status === 401) toLogin(); }, () => {});
      }
    };
    const on = (name, fn) => es.addEventListener(name, (ev) => {
      if (es !== S.es) return;
      let data;
      try { data = JSON.parse(ev.data); } catch (e) {
        problem(`could not parse the ${name} event: ${e.message}`, String(ev.data).slice(0, 200));
        return;
      }
      try { fn(data); } catch (e) {
        problem(`could not show the ${name} event: ${e.message}`, JSON.stringify(data).slice(0, 200));
        console.error(e);
      }
    });
    on('hello', (d) => {
      setBroker(d.broker);
      if (!S.robot && d.preselect) select(d.preselect);
    });
    on('broker', setBroker);
    on('robots', setRobots);
    on('fatal', (d) => problem('the dashboard cannot watch this robot: ' + (d && d.error)));
    on('connection', (d) => { S.conn = str(d.state); renderHeader(); });
    on('factsheet', (d) => {
      tree.setTypes(d && typeof d.types === 'object' ? d.types : {});
      window.dispatchEvent(new CustomEvent('botd:factsheet', { detail: d }));
      S.version = str(d.version);
      S.vehicleModes = d && Array.isArray(d.vehicle_modes) ? d.vehicle_modes.map(str) : [];
      setLink();
      renderVehicle();
    });
    on('state', (d) => { S.state = d; renderHeader(); renderRobots(); renderFailure(); });
    on('tree', (d) => {
      const nodes = Array.isArray(d.nodes) ? d.nodes : [];
      tree.setTree(d);
      window.dispatchEvent(new CustomEvent('botd:tree', { detail: d }));
      $('tree-empty').hidden = nodes.length > 0;
      // A tree over the dashboard's bounds comes without its nodes, with a note.
      $('tree-empty').textContent = typeof d.note === 'string' && d.note ? d.note : 'No mission is loaded on ' + S.robot + '.';
      $('tree-info').textContent = nodes.length ? `${counted(nodes.length, 'node')} · rev ${d.revision}` : '';
    });
    on('status', (d) => {
      if (d.mission !== tree.mission) return; // the tree event follows
      if (typeof d.keyframe === 'string' && d.keyframe) {
        if (d.keyframe.length !== tree.count()) problem(`keyframe of ${d.keyframe.length} letters for a tree of ${counted(tree.count(), 'node')}`);
        const bad = tree.setKeyframe(d.keyframe);
        if (bad) problem(`keyframe: ${bad} letters could not be applied`);
        tree.clearReasons();
      } else if (Array.isArray(d.changes)) {
        for (const c of d.changes) {
          if (!Array.isArray(c) || !tree.setStatus(c[0], c[1])) problem('status change not applied: ' + JSON.stringify(c));
        }
      }
      // Reasons come after the statuses they explain.
      for (const r of (Array.isArray(d.reasons) ? d.reasons : [])) {
        if (!r || !tree.setReason(r.node, r)) problem('reason not applied: ' + JSON.stringify(r));
      }
      $('kf-state').dataset.known = d.known ? 'yes' : 'no';
      window.dispatchEvent(new CustomEvent('botd:status', { detail: { statusOf: (i) => tree.statusOf(i) } })); // the map's progress
    });
    on('blackboard', (d) => {
      S.bb = d; S.bbAt = performance.now(); renderBB();
      window.dispatchEvent(new CustomEvent('botd:blackboard', { detail: d })); // the map's progress of an autopilot's mission
    });
    on('events', (list) => { for (const e of (Array.isArray(list) ? list : [])) addEvent(e); });
    on('history', (h) => {
      const n = $('history-note');
      if (h.error) { n.textContent = 'no history: ' + h.error; n.dataset.state = 'error'; return; }
      n.dataset.state = 'ok';
      n.textContent = h.count ? `history: ${counted(h.count, 'kept event')} (seq ${h.first_seq}–${h.to_seq}) · live` : 'no kept events · live';
      n.title = `the robot's events after seq ${h.first_seq ? h.first_seq - 1 : h.last_seq}, sent again on events.request (boot ${h.boot}), then the live ones`;
    });
    on('events_gap', (g) => logLocal('warning', 'history', `events ${g.from}–${g.to} are lost: the robot no longer keeps them`));
    on('event', (e) => {
      addEvent(e);
      // The debugger (debug.js) refreshes its hooks when they act.
      if (e && typeof e.kind === 'string' && e.kind.startsWith('hook.')) window.dispatchEvent(new CustomEvent('botd:hook', { detail: e }));
    });
    on('metrics_history', (list) => { chart.set(list); if (Array.isArray(list) && list.length) tickText(list[list.length - 1]); });
    on('metrics', (m) => { chart.add(m); tickText(m); });
    on('problems', (list) => { for (const p of (Array.isArray(list) ? list : [])) problem(`${p.topic}: ${p.error}`, '', p.time); });
    on('problem', (p) => problem(`${p.topic}: ${p.error}`, '', p.time));
    on('telemetry', (t) => {
      const parts = [];
      if (t.awaiting_keyframe) parts.push('awaiting keyframe…');
      if (t.status_gaps) parts.push(`status gaps: ${t.status_gaps}`);
      if (t.dropped) parts.push(`dropped: ${t.dropped}`);
      const kf = $('kf-state');
      kf.textContent = parts.join(' · ');
      kf.title = `status gaps: ${t.status_gaps}, keyframes requested: ${t.keyframe_requests}, ` +
        `messages dropped by botctl: ${t.dropped}, undecodable payloads: ${t.problems}`;
    });
    on('reply', (r) => {
      if (r && r.ok === false && r.error) addLog({ level: 'warning', kind: 'reply', message: `command ${str(r.id).slice(0, 8)} refused: ${r.error.code}: ${r.error.message}` });
    });
  }

  function setRobots(list) {
    S.robots = Array.isArray(list) ? list : [];
    renderRobots();
    if (!S.robot && !S.autoPicked) {
      const online = S.robots.filter((r) => r.online);
      if (online.length === 1) { S.autoPicked = true; select(online[0].id); }
    }
    renderHeader();
  }
  window.addEventListener('botd:robots', (ev) => setRobots(ev.detail));

  // setBroker shows the dashboard's own link to the broker.
  function setBroker(b) {
    if (!b || typeof b !== 'object') return;
    S.brokerUp = !!b.up;
    const where = b.url ? ' at ' + b.url : '';
    $('robots-empty').textContent = b.up ? 'Waiting for robots on the broker' + where + '…' : 'Connecting to the broker' + where + '…';
    $('broker').textContent = b.up ? '' : 'connecting to the broker' + where + '…';
    $('broker').hidden = !!b.up;
  }

  function setLink(text) {
    if (text) S.link = text;
    $('link').textContent = [S.link ? 'stream ' + S.link : '', S.version ? 'botd ' + S.version : ''].filter(Boolean).join(' · ');
  }

  // ---- rendering ----

  const str = (x) => (x === undefined || x === null ? '' : String(x));

  // renderRobots updates the list in place: an entry is rebuilt only when
  // what it shows changed, so a click is never lost to a redraw.
  const robotItems = new Map();
  function renderRobots() {
    if (window.BotdFleet) { window.BotdFleet.setSelected(S.robot); return; } // fleet.js draws the list
    const ul = $('robots');
    $('robots-empty').hidden = S.robots.length > 0;
    $('robot-count').textContent = S.robots.length ? `(${S.robots.filter((r) => r.online).length}/${S.robots.length} online)` : '';
    const keep = new Set();
    S.robots.forEach((r0, pos) => {
      // The selected robot's own state stream is fresher than the list.
      const r = Object.assign({}, r0);
      if (r.id === S.robot && S.state && r.online) {
        const st = S.state;
        r.mode = st.mode;
        if (st.mission) { r.mission = st.mission.name; r.mission_status = st.mission.status; }
        if (st.battery && typeof st.battery.percent === 'number') { r.battery = st.battery.percent; r.voltage = st.battery.voltage; }
      }
      keep.add(r.id);
      let item = robotItems.get(r.id);
      if (!item) {
        const li = document.createElement('li');
        li.dataset.robot = r.id;
        li.addEventListener('click', () => select(li.dataset.robot));
        item = { li, sig: '' };
        robotItems.set(r.id, item);
      }
      const battery = typeof r.battery === 'number' ? Math.round(r.battery) : null;
      const sig = JSON.stringify([r.id === S.robot, r.online, r.silent, r.connection, r.mode, battery, r.voltage, r.mission, r.mission_status]);
      if (ul.children[pos] !== item.li) ul.insertBefore(item.li, ul.children[pos] || null);
      if (sig === item.sig) return;
      item.sig = sig;
      fillRobot(item.li, r, battery);
    });
    for (const [id, item] of robotItems) if (!keep.has(id)) { item.li.remove(); robotItems.delete(id); }
  }

  function fillRobot(li, r, battery) {
    li.className = 'robot' + (r.id === S.robot ? ' selected' : '');
    li.dataset.online = r.online ? 'yes' : 'no';
    li.textContent = '';
    const r1 = div('r1');
    const dot = div('dot' + (r.online ? (r.silent ? ' silent' : ' online') : r.connection === 'CONNECTION_BROKEN' ? ' broken' : ''));
    dot.title = r.silent ? 'online but silent' : (r.connection || 'not heard');
    r1.append(dot, span('', r.id));
    const r2 = div('r2');
    const mode = span('mode-s', r.online ? (r.mode || '—') : (r.connection || 'unknown').toLowerCase().replace('_', ' '));
    mode.dataset.mode = r.online ? str(r.mode) : '';
    r2.append(mode);
    if (battery !== null) {
      const b = div('batt');
      const bar = div('batt-bar');
      const fill = div('batt-fill' + (battery < 20 ? ' low' : battery < 40 ? ' mid' : ''));
      fill.style.width = Math.max(0, Math.min(100, battery)) + '%';
      bar.append(fill);
      b.append(bar, span('', battery + '%'));
      b.title = typeof r.voltage === 'number' ? r.voltage.toFixed(2) + ' V' : '';
      r2.append(b);
    }
    li.append(r1, r2);
    if (r.mission) {
      const r3 = div('r2');
      r3.append(span('', r.mission), span('', str(r.mission_status).toLowerCase()));
      li.append(r3);
    }
  }

  function renderHeader() {
    $('robot-name').textContent = S.robot || 'no robot selected';
    const sum = S.robots.find((r) => r.id === S.robot);
    let conn = S.conn || (sum && sum.connection) || '';
    if (sum && sum.silent) conn = 'SILENT';
    const c = $('conn');
    c.textContent = conn ? conn.toLowerCase().replace('_', ' ') : (S.robot ? 'not heard' : '—');
    c.dataset.conn = conn;
    const st = S.state;
    const mode = $('mode');
    mode.textContent = st ? str(st.mode) || '—' : '—';
    mode.dataset.mode = st ? str(st.mode) : '';
    const stale = !!conn && conn !== 'ONLINE';
    mode.classList.toggle('stale', stale);
    mode.title = stale ? 'last known mode: the robot is ' + conn.toLowerCase().replace('_', ' ') : '';
    $('requested').textContent = st && st.requested_mode && st.requested_mode !== st.mode ? 'requested ' + st.requested_mode : '';
    const m = st && st.mission;
    $('mission-name').textContent = m ? `${m.name || m.id || 'mission'}${m.revision ? ' rev ' + m.revision : ''}` : 'no mission';
    $('mission-status').textContent = m ? str(m.status) : '';
    const fs = $('failsafe');
    const notes = [];
    if (st && st.failsafe && st.failsafe.active) notes.push(`FAILSAFE: ${st.failsafe.reason}${st.failsafe.action ? ' → ' + st.failsafe.action : ''}`);
    if (st && Array.isArray(st.errors)) for (const e of st.errors.slice(0, 3)) notes.push(`${e.level || ''} ${e.code}${e.ref ? ' ' + e.ref : ''}: ${e.message}`);
    fs.hidden = notes.length === 0;
    fs.textContent = notes.join('\n');
    fs.title = notes.join('\n');
    // Emphasise the commands that make sense now; none is disabled, the
    // robot has the last word.
    const md = st ? st.mode : '';
    const relevant = {
      'btn-start': md === 'IDLE' && !!m,
      'btn-pause': md === 'RUNNING' || md === 'FAILSAFE',
      'btn-resume': md === 'PAUSED',
      'btn-abort': md === 'RUNNING' || md === 'PAUSED' || md === 'FAILSAFE',
      'btn-estop-reset': !!(st && st.estop),
    };
    for (const id in relevant) $(id).classList.toggle('dim', !relevant[id]);
    document.title = S.robot ? `${S.robot} · ${md || '…'} · botd` : 'botd dashboard';
  }

  // renderFailure shows state.last_failure: which node failed, why, when.
  function renderFailure() {
    const box = $('failure');
    const f = S.state && S.state.last_failure;
    if (!f || typeof f !== 'object') { box.hidden = true; box.textContent = ''; return; }
    const m = S.state.mission;
    const current = m && m.id === f.mission;
    // A failure from before the current run started (the same mission run
    // again, or another one) is history: not a banner over the new run.
    const started = m && Date.parse(m.started);
    const thisRun = current && !(started && Date.parse(f.time) < started);
    if (!thisRun && m && (m.status === 'RUNNING' || m.status === 'PAUSED')) { box.hidden = true; box.textContent = ''; return; }
    box.hidden = false;
    box.dataset.code = str(f.code);
    box.classList.toggle('old', !thisRun);
    box.textContent = '';
    const head = div('head');
    const what = f.status ? `${f.mission_name || 'mission'} ended ${f.status}` : `node error in ${f.mission_name || 'the mission'}`;
    head.append(span('', what + (f.node_name ? ' at ' : '')));
    if (f.node_name) {
      const ref = span('node-ref', f.node_name + (Number.isInteger(f.node) ? ' #' + f.node : ''));
      ref.title = (f.path ? f.path + ' — ' : '') + 'show the node';
      if (Number.isInteger(f.node) && current) ref.addEventListener('click', () => tree.focus(f.node));
      head.append(ref);
    }
    head.append(span('muted', ' · ' + fmtTime(f.time) + (thisRun ? '' : current ? ' (an earlier run)' : ' (an earlier mission)')));
    const msg = div('why');
    msg.textContent = str(f.message);
    box.append(head, msg);
    box.title = [f.code, f.path, f.message].filter(Boolean).join('\n');
  }

  function tickText(m) {
    const t = (m && m.tick) || {};
    const parts = [];
    if (t.hz) parts.push(t.hz + ' Hz');
    if (typeof t.last_us === 'number') parts.push('last ' + fmtUs(t.last_us));
    if (typeof t.jitter_p99_us === 'number') parts.push('jitter p99 ' + fmtUs(t.jitter_p99_us));
    if (typeof t.overruns === 'number') parts.push(t.overruns + ' overruns');
    $('tick-now').textContent = parts.join(' · ');
  }

  function fmtAge(ms) {
    if (!isFinite(ms)) return '';
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
    if (ms < 3600000) return Math.round(ms / 60000) + ' min';
    return (ms / 3600000).toFixed(1) + ' h';
  }

  function fmtValue(v) {
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
    const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v);
    return s === undefined ? String(v) : s.length > 120 ? s.slice(0, 119) + '…' : s;
  }

  // The vehicle line under the robot's name: a MAVLink vehicle's <key>.armed, .in_air, .mode,
  // .alt and .battery_percent from the blackboard (docs/UAV.md, "Blackboard keys"). The mode's
  // name comes with the factsheet (vehicle_modes: the robot's names, else botctl's defaults).
  function renderVehicle() {
    const el = $('vehicle');
    const vals = S.bb && Array.isArray(S.bb.values) ? S.bb.values : [];
    const kv = new Map();
    for (const x of vals) if (x && typeof x.key === 'string') kv.set(x.key, x.value);
    const parts = [];
    for (const [k] of kv) {
      if (!k.endsWith('.armed')) continue;
      const p = k.slice(0, -'.armed'.length);
      if (!kv.has(p + '.mode')) continue;
      const num = (v) => (typeof v === 'boolean' ? (v ? 1 : 0) : Number(v));
      const mode = num(kv.get(p + '.mode'));
      let s = `${p}: ${num(kv.get(k)) === 1 ? 'ARMED' : 'disarmed'}`;
      if (kv.has(p + '.in_air')) s += num(kv.get(p + '.in_air')) === 1 ? ', in air' : ', on the ground';
      const modes = S.vehicleModes || [];
      s += `, ${Number.isInteger(mode) && mode >= 0 && mode < modes.length ? modes[mode] : 'unknown'}`;
      if (kv.has(p + '.alt')) s += `, alt ${num(kv.get(p + '.alt')).toFixed(1)} m`;
      if (kv.has(p + '.battery_percent')) s += `, battery ${num(kv.get(p + '.battery_percent')).toFixed(0)}%`;
      parts.push(s);
      if (parts.length >= 4) break;
    }
    parts.sort();
    el.hidden = parts.length === 0;
    setText(el, parts.join(' · '));
    el.dataset.armed = parts.some((s) => s.includes(': ARMED')) ? 'yes' : 'no';
  }

  function renderBB() {
    renderVehicle();
    const tbody = $('bb').tBodies[0];
    const vals = S.bb && Array.isArray(S.bb.values) ? S.bb.values.slice() : [];
    vals.sort((a, b) => str(a && a.key).localeCompare(str(b && b.key)));
    const since = S.bb ? performance.now() - S.bbAt : 0;
    // Values come by exception (when they change beyond their deadband), so
    // a steady reading only ages on the ground: its age says when it last
    // changed, not that its sensor stopped. The colour is the sensor's own
    // staleness, as the robot reports it in state.errors (SENSOR_STALE,
    // SENSOR_ERROR, with the key), or the robot's link, when it is down.
    const faults = new Map();
    if (S.state && Array.isArray(S.state.errors)) {
      for (const e of S.state.errors) if (e && typeof e.ref === 'string' && /^SENSOR_/.test(str(e.code))) faults.set(e.ref, e);
    }
    const sum = S.robots.find((r) => r.id === S.robot);
    const conn = S.conn || (sum && sum.connection) || '';
    const linkDown = (!!conn && conn !== 'ONLINE') || !!(sum && sum.silent);
    $('bb-count').textContent = vals.length ? `(${vals.length})` : '';
    while (tbody.rows.length > vals.length) tbody.deleteRow(-1);
    vals.forEach((x, i) => {
      const row = tbody.rows[i] || tbody.insertRow();
      if (row.cells.length !== 3) { row.textContent = ''; for (const c of ['k', 'v', 'a']) row.insertCell().className = c; }
      const age = typeof x.age_ms === 'number' ? x.age_ms + since : NaN;
      setText(row.cells[0], str(x && x.key));
      setText(row.cells[1], fmtValue(x && x.value));
      row.cells[1].title = JSON.stringify(x && x.value) || '';
      setText(row.cells[2], fmtAge(age));
      const fault = faults.get(str(x && x.key));
      row.cells[2].className = 'a' + (fault ? ' old' : linkDown ? ' stale' : '');
      row.cells[2].title = fault ? `${fault.code}: ${str(fault.message)}`
        : linkDown ? 'the robot is not online: the last value it sent'
        : 'since the value last changed (values are sent when they change beyond their deadband; a sensor that stops is reported, and shown red)';
    });
  }

  // counted is "1 node", "3 nodes".
  function counted(n, noun) { return `${n} ${noun}${n === 1 ? '' : 's'}`; }
  function setText(el, s) { if (el.textContent !== s) el.textContent = s; }
  function div(cls) { const d = document.createElement('div'); d.className = cls; return d; }
  function span(cls, text) { const s = document.createElement('span'); if (cls) s.className = cls; s.textContent = text; return s; }

  // ---- the event log ----

  function fmtTime(t) {
    const d = t ? new Date(t) : new Date();
    if (isNaN(d)) return str(t).slice(11, 23);
    const p = (n, w) => String(n).padStart(w || 2, '0');
    return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
  }

  function addEvent(e) {
    if (!e || typeof e !== 'object') { problem('event that is not an object: ' + JSON.stringify(e)); return; }
    if (e.id) { if (S.eventIDs.has(e.id)) return; S.eventIDs.add(e.id); }
    addLog({ time: e.time || e.ts, level: str(e.level || 'info').toLowerCase(), kind: str(e.kind), message: str(e.message), node: e.node, data: e.data });
    if (e.kind === 'geofence.breach') window.dispatchEvent(new CustomEvent('botd:breach', { detail: e })); // the map marks the zone
  }

  function addLog(x) {
    const li = document.createElement('li');
    li.className = x.cls || x.level || 'info';
    const msg = span('msg', x.message);
    if (Number.isInteger(x.node)) {
      const ref = span('node-ref', '#' + x.node);
      ref.title = 'show the node';
      ref.addEventListener('click', () => tree.focus(x.node));
      msg.append(ref);
    }
    if (x.data && typeof x.data === 'object' && Object.keys(x.data).length) {
      msg.title = JSON.stringify(x.data);
      if (x.data.status) msg.append(span('muted', ' → ' + x.data.status));
    }
    li.append(span('t', fmtTime(x.time)), span('lv', x.levelText || x.level || ''), span('kd', x.kind || ''), msg);
    li.querySelector('.kd').title = x.kind || '';
    const log = $('log');
    log.prepend(li);
    while (log.children.length > MAX_LOG) log.lastChild.remove();
  }

  function logLocal(level, kind, message, node) {
    addLog({ level, kind, message, node, cls: 'local ' + level, levelText: level });
  }

  function problem(message, detail, time) {
    S.problems++;
    $('problem-count').textContent = counted(S.problems, 'problem');
    addLog({ time, level: 'problem', kind: 'unparsed', message: message + (detail ? ' — ' + detail : ''), cls: 'problem' });
  }

  // ---- commands ----

  async function post(url, body, headers) {
    const res = await fetch(url, { method: 'POST', body, headers: Object.assign({ 'X-Botctl': '1' }, headers || {}), credentials: 'same-origin' });
    if (res.status === 401) toLogin(); // the session ended (botctl ui restarted, or it expired)
    const text = await res.text();
    let data;
    try { data = JSON.parse(text); } catch (e) {
      data = { ok: false, error: { code: 'HTTP_' + res.status, message: text.slice(0, 300) || res.statusText } };
    }
    return data;
  }

  function showReply(what, d) {
    const box = $('reply');
    box.hidden = false;
    box.className = 'reply ' + (d && d.ok ? 'ok' : 'err');
    box.textContent = '';
    const head = div('head');
    if (d && d.ok) {
      let text = `${what}: ok`;
      const res = d.reply && d.reply.result;
      if (res && typeof res === 'object') {
        if (res.nodes) text += ` · ${counted(res.nodes, 'node')}`;
        if (res.started) text += ' · started';
        if (res.unchanged) text += ' · unchanged (same revision)';
      }
      if (d.upload && d.upload.id_filled) text += ' · id filled in';
      head.textContent = text;
      box.append(head);
    } else {
      const e = (d && d.error) || { code: 'ERROR', message: 'no answer' };
      head.textContent = `${what}: ${e.code}`;
      box.append(head);
      const msg = div('');
      msg.textContent = str(e.message) + (e.path && !(e.problems && e.problems.length) ? ` (at ${e.path})` : '');
      box.append(msg);
      if (Array.isArray(e.problems) && e.problems.length) {
        const ul = document.createElement('ul');
        for (const p of e.problems) {
          const li = document.createElement('li');
          const code = document.createElement('code');
          code.textContent = p.path || '/';
          li.append(code, document.createTextNode(': ' + str(p.message) + (p.code ? ` [${p.code}]` : '')));
          ul.append(li);
        }
        box.append(ul);
      }
    }
    if (d && d.upload && d.upload.mission_id) {
      const info = div('muted');
      info.textContent = `mission ${d.upload.mission_id}${d.upload.filename ? ' from ' + d.upload.filename : ''} (${d.upload.format}, ${d.upload.bytes} bytes)`;
      box.append(info);
    }
    box.dataset.ok = d && d.ok ? 'yes' : 'no';
  }

  async function command(name, btn) {
    if (!S.robot) { showReply(name, { ok: false, error: { code: 'NO_ROBOT', message: 'select a robot first' } }); return; }
    btn.classList.add('busy');
    try {
      const d = await post(`/api/robots/${encodeURIComponent(S.robot)}/commands/${name}`, '{}', { 'Content-Type': 'application/json' });
      showReply(name, d);
      // A refusal also comes on the reply topic (logged there); log here
      // only what never reached the robot or got no answer.
      if (!d.ok && !d.reply) logLocal('warning', 'command', `${name}: ${d.error ? d.error.code + ': ' + d.error.message : 'failed'}`);
    } catch (e) {
      showReply(name, { ok: false, error: { code: 'NETWORK', message: e.message } });
    } finally {
      btn.classList.remove('busy');
    }
  }

  for (const btn of document.querySelectorAll('button[data-cmd]')) {
    btn.addEventListener('click', () => command(btn.dataset.cmd, btn));
  }

  async function upload(file) {
    if (!S.robot) { showReply('upload', { ok: false, error: { code: 'NO_ROBOT', message: 'select a robot first' } }); return; }
    if (!file) { showReply('upload', { ok: false, error: { code: 'NO_FILE', message: 'choose a mission file' } }); return; }
    const fd = new FormData();
    fd.append('mission', file, file.name);
    fd.append('start', $('upload-start').checked ? 'true' : 'false');
    fd.append('replace', $('upload-replace').checked ? 'true' : 'false');
    const btn = $('btn-upload');
    btn.disabled = true;
    try {
      showReply('upload ' + file.name, await post(`/api/robots/${encodeURIComponent(S.robot)}/mission`, fd));
    } catch (e) {
      showReply('upload', { ok: false, error: { code: 'NETWORK', message: e.message } });
    } finally {
      btn.disabled = false;
    }
  }

  $('upload-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    upload($('upload-file').files[0]);
  });
  const card = $('upload-card');
  card.addEventListener('dragover', (ev) => { ev.preventDefault(); card.classList.add('drop'); });
  card.addEventListener('dragleave', () => card.classList.remove('drop'));
  card.addEventListener('drop', (ev) => {
    ev.preventDefault();
    card.classList.remove('drop');
    const f = ev.dataTransfer && ev.dataTransfer.files[0];
    if (f) upload(f);
  });

  // ---- tree tools ----

  function layoutLabel() { $('btn-layout').textContent = tree.orientation === 'lr' ? '↕ top-down' : '↔ left-right'; }
  $('btn-layout').addEventListener('click', () => { tree.setOrientation(tree.orientation === 'lr' ? 'td' : 'lr'); layoutLabel(); });
  $('btn-fit').addEventListener('click', () => { tree.userMoved = false; tree.fit(); });
  $('btn-expand').addEventListener('click', () => tree.expandAll());
  $('btn-zoom-in').addEventListener('click', () => tree.zoomCenter(1.25));
  $('btn-zoom-out').addEventListener('click', () => tree.zoomCenter(0.8));
  $('btn-log-clear').addEventListener('click', () => { $('log').textContent = ''; S.problems = 0; $('problem-count').textContent = ''; });
  const debugBox = $('log-debug');
  const applyDebug = () => $('log').classList.toggle('hide-debug', !debugBox.checked);
  debugBox.addEventListener('change', applyDebug);
  applyDebug();
  layoutLabel();

  // Blackboard ages move on between messages; redraw at most 4 times a second.
  setInterval(() => { if (S.bb) renderBB(); }, 250);

  window.addEventListener('popstate', () => { const r = robotFromURL(); if (r) select(r, 'url'); });

  S.robot = robotFromURL();
  resetRobotView();
  connect();
})();
