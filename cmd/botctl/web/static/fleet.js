'use strict';
// The fleet list: every robot from the fleet summary stream (/api/fleet:
// one compact row per robot, then the changed rows at most twice a
// second), filtered, sorted and searched here, drawn virtualized (only the
// rows in view are in the DOM), with a multi-selection whose commands
// (e-stop, pause, resume, abort) go through POST /api/fleet/commands and
// come back with one result per robot. It feeds the map (map.js) and the
// page (app.js: the header of the selected robot).
(function () {
  const $ = (id) => document.getElementById(id);
  const ROW_H = 46;      // px, fixed: the list is virtualized
  const OVERSCAN = 6;    // rows drawn beyond the visible ones
  const TRAIL = 32;      // trail points kept per robot (the server's too)
  const LINK_ORDER = { online: 0, stale: 1, offline: 2 };

  const F = {
    rows: new Map(),     // id → row (with .trail)
    fences: new Map(),   // key → fence
    view: [],            // filtered and sorted rows
    sel: new Set(),      // selected ids
    results: new Map(),  // id → {ok, code, message}: the last selection command
    selected: '',        // the robot whose tree is open
    over: 0,
    es: null,
    dirty: false,
    lastClicked: '',
  };
  const listeners = [];

  const str = (x) => (x === undefined || x === null ? '' : String(x));
  const site = (r) => (r.labels && r.labels.site) || '';

  // ---- the stream ----

  function connect() {
    if (F.es) F.es.close();
    const es = new EventSource('/api/fleet');
    F.es = es;
    es.addEventListener('fleet', (ev) => {
      if (es !== F.es) return;
      let d;
      try { d = JSON.parse(ev.data); } catch (e) { console.error('fleet frame', e); return; }
      apply(d);
    });
  }

  function apply(d) {
    if (d.full) F.rows.clear();
    for (const [k, v] of Object.entries(d.fences || {})) F.fences.set(k, v);
    for (const r of (Array.isArray(d.rows) ? d.rows : [])) {
      if (!r || typeof r.id !== 'string') continue;
      const old = F.rows.get(r.id);
      let trail = Array.isArray(r.trail) ? r.trail.slice(-TRAIL) : (old ? old.trail : []);
      if (r.pose && !Array.isArray(r.trail)) {
        if (old && old.pose && old.pose.f !== r.pose.f) trail = [];
        const last = trail[trail.length - 1];
        if (!last || last[0] !== r.pose.x || last[1] !== r.pose.y) {
          trail = trail.concat([[r.pose.x, r.pose.y]]).slice(-TRAIL);
        }
      }
      r.trail = trail;
      F.rows.set(r.id, r);
    }
    F.over = d.over || 0;
    F.total = d.total || F.rows.size;
    schedule();
    // app.js keeps its header and auto-selection on the list it knew.
    const legacy = [];
    for (const r of F.rows.values()) {
      legacy.push({ id: r.id, online: r.conn === 'ONLINE', silent: r.link === 'stale', connection: str(r.conn),
        mode: r.mode, mission: r.mission, mission_status: r.ms, battery: r.batt, estop: r.estop });
    }
    window.dispatchEvent(new CustomEvent('botd:robots', { detail: legacy }));
  }

  // ---- filters, sorting, search ----

  const filterIDs = ['f-link', 'f-mode', 'f-label', 'f-mission', 'f-batt', 'f-sort', 'fleet-search'];

  function filters() {
    return {
      link: $('f-link').value, mode: $('f-mode').value, label: $('f-label').value,
      mission: $('f-mission').value, batt: $('f-batt').value,
      q: $('fleet-search').value.trim().toLowerCase(),
      sort: $('f-sort').value || 'id', dir: $('f-dir').dataset.dir === 'desc' ? -1 : 1,
    };
  }

  function matches(r, f) {
    if (f.link && r.link !== f.link) return false;
    if (f.mode && (r.mode || '') !== f.mode) return false;
    if (f.mission && (r.mission || '') !== f.mission) return false;
    if (f.label) {
      const i = f.label.indexOf('=');
      if (!r.labels || r.labels[f.label.slice(0, i)] !== f.label.slice(i + 1)) return false;
    }
    if (f.batt) {
      const b = r.batt;
      if (f.batt === 'none') { if (typeof b === 'number') return false; }
      else if (typeof b !== 'number' || b >= Number(f.batt)) return false;
    }
    if (f.q) {
      const hay = [r.id, r.mode, r.mission, r.ms, r.link].concat(
        Object.entries(r.labels || {}).map(([k, v]) => k + '=' + v)).join(' ').toLowerCase();
      if (!hay.includes(f.q)) return false;
    }
    return true;
  }

  const sortKeys = {
    id: (r) => r.id,
    link: (r) => LINK_ORDER[r.link] ?? 3,
    mode: (r) => r.mode || '~',
    mission: (r) => r.mission || '~',
    battery: (r) => (typeof r.batt === 'number' ? r.batt : 1e9),
    site: (r) => site(r) || '~',
    errors: (r) => -(r.err || 0),
  };

  function compute() {
    const f = filters();
    const key = sortKeys[f.sort] || sortKeys.id;
    const out = [];
    for (const r of F.rows.values()) if (matches(r, f)) out.push(r);
    out.sort((a, b) => {
      const x = key(a), y = key(b);
      if (x < y) return -f.dir;
      if (x > y) return f.dir;
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    });
    F.view = out;
  }

  // fillOptions keeps a select's options to the values seen (plus the
  // chosen one), without losing the choice.
  function fillOptions(sel, values, anyText) {
    const cur = sel.value;
    const want = [''].concat([...values].sort());
    if (cur && !values.has(cur)) want.push(cur);
    const have = [...sel.options].map((o) => o.value);
    if (have.length === want.length && have.every((v, i) => v === want[i])) return;
    sel.textContent = '';
    for (const v of want) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v || anyText;
      sel.append(o);
    }
    sel.value = cur;
  }

  function refreshOptions() {
    const modes = new Set(), labels = new Set(), missions = new Set();
    for (const r of F.rows.values()) {
      if (r.mode) modes.add(r.mode);
      if (r.mission) missions.add(r.mission);
      for (const [k, v] of Object.entries(r.labels || {})) if (labels.size < 500) labels.add(k + '=' + v);
    }
    fillOptions($('f-mode'), modes, 'any mode');
    fillOptions($('f-label'), labels, 'any label');
    fillOptions($('f-mission'), missions, 'any mission');
  }

  // ---- rendering ----

  function schedule() {
    if (F.dirty) return;
    F.dirty = true;
    requestAnimationFrame(() => { F.dirty = false; render(); });
  }

  function render() {
    const t0 = performance.now();
    refreshOptions();
    compute();
    renderList();
    renderCounts();
    for (const fn of listeners) {
      try { fn(); } catch (e) { console.error(e); }
    }
    F.renderMs = performance.now() - t0;
    F.maxRenderMs = Math.max(F.maxRenderMs || 0, F.renderMs);
  }

  const rowEls = new Map(); // id → {li, sig}

  function renderList() {
    const scroll = $('robots-scroll');
    const n = F.view.length;
    $('robots-spacer').style.height = (n * ROW_H) + 'px';
    const first = Math.max(0, Math.floor(scroll.scrollTop / ROW_H) - OVERSCAN);
    const last = Math.min(n, Math.ceil((scroll.scrollTop + scroll.clientHeight) / ROW_H) + OVERSCAN);
    const ul = $('robots');
    ul.style.transform = `translateY(${first * ROW_H}px)`;
    const keep = new Set();
    for (let i = first; i < last; i++) {
      const r = F.view[i];
      keep.add(r.id);
      let item = rowEls.get(r.id);
      if (!item) {
        const li = document.createElement('li');
        li.dataset.robot = r.id;
        item = { li, sig: '' };
        rowEls.set(r.id, item);
      }
      const res = F.results.get(r.id);
      const sig = JSON.stringify([r, F.sel.has(r.id), r.id === F.selected, res]);
      if (item.sig !== sig) { item.sig = sig; fillRow(item.li, r, res); }
      const pos = i - first;
      if (ul.children[pos] !== item.li) ul.insertBefore(item.li, ul.children[pos] || null);
    }
    for (const [id, item] of rowEls) if (!keep.has(id)) { item.li.remove(); rowEls.delete(id); }
    $('robots-empty').hidden = F.rows.size > 0;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fillRow(li, r, res) {
    li.className = 'robot' + (r.id === F.selected ? ' selected' : '') + (F.sel.has(r.id) ? ' checked' : '');
    li.dataset.online = r.conn === 'ONLINE' ? 'yes' : 'no';
    li.dataset.link = r.link;
    li.dataset.mode = str(r.mode);
    li.textContent = '';
    const r1 = el('div', 'r1');
    const box = el('input', 'pick');
    box.type = 'checkbox';
    box.checked = F.sel.has(r.id);
    box.title = 'select for the fleet actions (shift-click: a range)';
    const dot = el('div', 'dot' + (r.link === 'online' ? ' online' : r.link === 'stale' ? ' silent' : r.conn === 'CONNECTION_BROKEN' ? ' broken' : ''));
    dot.title = r.link + (r.conn ? ' (' + r.conn + ')' : '');
    const mode = el('span', 'mode-s', r.link === 'offline' ? (r.conn || 'not heard').toLowerCase().replace('_', ' ') : (r.mode || '—'));
    mode.dataset.mode = r.link === 'offline' ? '' : str(r.mode);
    r1.append(box, dot, el('span', 'rid', r.id), mode);
    if (res) {
      const b = el('span', 'res ' + (res.ok ? 'ok' : 'err'), res.ok ? '✓' : '✗ ' + res.code);
      b.title = res.ok ? 'done' : res.message;
      r1.append(b);
    }
    const r2 = el('div', 'r2');
    const left = [r.mission ? r.mission + (r.ms ? ' · ' + r.ms.toLowerCase() : '') : 'no mission'];
    if (site(r)) left.push(site(r));
    r2.append(el('span', 'rmis', left.join(' · ')));
    if (typeof r.batt === 'number') {
      const b = Math.round(r.batt);
      const bw = el('div', 'batt');
      const bar = el('div', 'batt-bar');
      const fill = el('div', 'batt-fill' + (b < 20 ? ' low' : b < 40 ? ' mid' : ''));
      fill.style.width = Math.max(0, Math.min(100, b)) + '%';
      bar.append(fill);
      bw.append(bar, el('span', '', b + '%'));
      r2.append(bw);
    }
    if (r.err) r2.append(el('span', 'bad', r.err + ' err'));
    li.append(r1, r2);
    li.title = Object.entries(r.labels || {}).map(([k, v]) => k + '=' + v).join(', ');
  }

  function renderCounts() {
    const online = [...F.rows.values()].filter((r) => r.link === 'online').length;
    const shown = F.view.length;
    $('robot-count').textContent = F.rows.size ? `(${online}/${F.rows.size} online${shown !== F.rows.size ? `, ${shown} shown` : ''})` : '';
    $('robots-scroll').dataset.shown = String(shown);
    const inView = new Set(F.view.map((r) => r.id));
    const hidden = [...F.sel].filter((id) => !inView.has(id)).length;
    $('sel-count').textContent = F.sel.size ? `${F.sel.size} selected${hidden ? ` (${hidden} not shown)` : ''}` : 'none selected';
    const all = $('sel-all');
    all.checked = shown > 0 && F.view.every((r) => F.sel.has(r.id));
    all.indeterminate = !all.checked && F.view.some((r) => F.sel.has(r.id));
    for (const id of ['sel-estop', 'sel-pause', 'sel-resume', 'sel-abort', 'sel-reset']) $(id).disabled = F.sel.size === 0;
    $('fleet-over').hidden = !F.over;
    $('fleet-over').textContent = F.over ? `${F.over} more robots are not tracked (the dashboard keeps at most ${F.rows.size})` : '';
  }

  // ---- selection and clicks ----

  $('robots').addEventListener('click', (ev) => {
    const li = ev.target.closest('li.robot');
    if (!li) return;
    const id = li.dataset.robot;
    if (ev.target.classList.contains('pick')) {
      if (ev.shiftKey && F.lastClicked) {
        const a = F.view.findIndex((r) => r.id === F.lastClicked), b = F.view.findIndex((r) => r.id === id);
        if (a >= 0 && b >= 0) {
          const on = ev.target.checked;
          for (let i = Math.min(a, b); i <= Math.max(a, b); i++) on ? F.sel.add(F.view[i].id) : F.sel.delete(F.view[i].id);
        }
      } else if (ev.target.checked) F.sel.add(id); else F.sel.delete(id);
      F.lastClicked = id;
      schedule();
      return;
    }
    open(id);
  });

  $('sel-all').addEventListener('change', (ev) => {
    for (const r of F.view) ev.target.checked ? F.sel.add(r.id) : F.sel.delete(r.id);
    schedule();
  });
  $('sel-clear').addEventListener('click', () => { F.sel.clear(); F.results.clear(); $('sel-result').hidden = true; schedule(); });

  function open(id) {
    if (typeof window.botdSelect === 'function') window.botdSelect(id);
  }

  // ---- commands to the selection ----

  async function act(name, btn) {
    const robots = [...F.sel];
    if (!robots.length) return;
    const box = $('sel-result');
    box.hidden = false;
    box.className = 'sel-result small busy';
    box.textContent = `${name}: sending to ${robots.length} robot${robots.length === 1 ? '' : 's'}…`;
    btn.classList.add('busy');
    try {
      const res = await fetch('/api/fleet/commands/' + name, {
        method: 'POST', credentials: 'same-origin',
        headers: { 'X-Botctl': '1', 'Content-Type': 'application/json' },
        body: JSON.stringify({ robots }),
      });
      const text = await res.text();
      let d;
      try { d = JSON.parse(text); } catch (e) { d = { error: { code: 'HTTP_' + res.status, message: text.slice(0, 300) } }; }
      showResults(name, d);
    } catch (e) {
      showResults(name, { error: { code: 'NETWORK', message: e.message } });
    } finally {
      btn.classList.remove('busy');
    }
  }

  function showResults(name, d) {
    const box = $('sel-result');
    box.textContent = '';
    box.hidden = false;
    if (!Array.isArray(d.results)) {
      const e = d.error || { code: 'ERROR', message: 'no answer' };
      box.className = 'sel-result small err';
      box.textContent = `${name}: ${e.code}: ${e.message}`;
      return;
    }
    F.results.clear();
    for (const r of d.results) {
      F.results.set(r.robot, { ok: !!r.ok, code: r.error ? r.error.code : '', message: r.error ? r.error.message : '' });
    }
    box.className = 'sel-result small ' + (d.failed ? 'err' : 'ok');
    box.dataset.ok = String(d.ok);
    box.dataset.failed = String(d.failed);
    box.append(el('div', 'head', `${name}: ${d.ok} ok, ${d.failed} failed`));
    const bad = d.results.filter((r) => !r.ok);
    if (bad.length) {
      const ul = el('ul');
      for (const r of bad.slice(0, 50)) ul.append(el('li', '', `${r.robot}: ${r.error ? r.error.code + ': ' + r.error.message : 'failed'}`));
      if (bad.length > 50) ul.append(el('li', 'muted', `… and ${bad.length - 50} more`));
      box.append(ul);
    }
    schedule();
  }

  const actions = { 'sel-estop': 'estop', 'sel-pause': 'pause', 'sel-resume': 'resume', 'sel-abort': 'abort', 'sel-reset': 'estop-reset' };
  for (const [id, name] of Object.entries(actions)) $(id).addEventListener('click', (ev) => act(name, ev.currentTarget));

  // ---- wiring ----

  for (const id of filterIDs) $(id).addEventListener(id === 'fleet-search' ? 'input' : 'change', schedule);
  $('f-dir').addEventListener('click', (ev) => {
    const b = ev.currentTarget;
    b.dataset.dir = b.dataset.dir === 'desc' ? 'asc' : 'desc';
    b.textContent = b.dataset.dir === 'desc' ? '↓' : '↑';
    schedule();
  });
  $('robots-scroll').addEventListener('scroll', () => renderList(), { passive: true });
  window.addEventListener('resize', schedule);

  window.BotdFleet = {
    rows: F.rows,
    fences: F.fences,
    view: () => F.view,
    selected: () => F.selected,
    // setSelected marks the robot whose tree is open.
    setSelected(id) { if (id !== F.selected) { F.selected = id; schedule(); } },
    open,
    onChange(fn) { listeners.push(fn); },
    // stats: the list's size and the cost of its last and slowest redraw.
    stats: () => ({ rows: F.rows.size, shown: F.view.length, dom: $('robots').children.length, renderMs: F.renderMs, maxRenderMs: F.maxRenderMs }),
    // scrollTo brings a robot's row into view.
    scrollTo(id) {
      const i = F.view.findIndex((r) => r.id === id);
      if (i < 0) return;
      const s = $('robots-scroll');
      if (i * ROW_H < s.scrollTop || (i + 1) * ROW_H > s.scrollTop + s.clientHeight) s.scrollTop = i * ROW_H - s.clientHeight / 2;
      renderList();
    },
  };
  connect();
})();
