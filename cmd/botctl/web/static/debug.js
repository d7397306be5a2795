'use strict';
// The debugger on the tree: breakpoints, steps and forced statuses on the
// selected robot's running mission (the hook commands of PROTOCOL.md,
// through POST /api/robots/{robot}/hooks/{op}). Click a node, then Break
// or Force; the held node is outlined on the tree and named in the bar.
// While this page has hooks set it sends list every second: the robot
// releases the hooks of a debugging client that went silent.
(function () {
  const $ = (id) => document.getElementById(id);
  const HEARTBEAT_MS = 1000;
  const D = { robot: '', mission: '', revision: 0, nodes: [], node: null, hooks: [], mine: false, timer: 0, allowed: true };

  function label(i) {
    const n = D.nodes.find((x) => x && x.index === i);
    if (!n) return '#' + i;
    return `#${i} ${n.type}${n.name && n.name !== n.type ? ' "' + n.name + '"' : ''}`;
  }

  function say(text, bad) {
    const m = $('dbg-msg');
    m.textContent = text;
    m.classList.toggle('bad', !!bad);
  }

  async function hookOp(op, body) {
    if (!D.robot) { say('select a robot first', true); return null; }
    let d;
    try {
      const res = await fetch(`/api/robots/${encodeURIComponent(D.robot)}/hooks/${op}`, {
        method: 'POST', body: JSON.stringify(body || {}), credentials: 'same-origin',
        headers: { 'X-Botctl': '1', 'Content-Type': 'application/json' },
      });
      if (res.status === 401) { window.location.href = '/login'; return null; }
      try { d = await res.json(); } catch (e) { d = { ok: false, error: { code: 'HTTP_' + res.status, message: res.statusText } }; }
    } catch (e) {
      d = { ok: false, error: { code: 'NETWORK', message: e.message } };
    }
    const result = d && d.reply && d.reply.result;
    if (d && d.ok && result) {
      D.allowed = true;
      show(result);
    } else if (d && d.error) {
      if (d.error.code === 'DEBUG_NOT_ALLOWED') {
        D.allowed = false;
        say('debugging is not allowed on this robot (its config: debug.allow)', false);
      } else if (!(op === 'list' && d.error.code === 'NO_MISSION')) {
        say(`${op}: ${d.error.code}: ${d.error.message}`, true);
      }
      render();
    }
    return d;
  }

  function show(result) {
    D.hooks = Array.isArray(result.hooks) ? result.hooks : [];
    if (!D.hooks.length) D.mine = false;
    render();
    schedule();
  }

  // schedule keeps the heartbeat going while this page has hooks set.
  function schedule() {
    clearTimeout(D.timer);
    if (D.mine && D.robot) D.timer = setTimeout(() => hookOp('list'), HEARTBEAT_MS);
  }

  function held() { return D.hooks.filter((h) => h.held); }

  // mark outlines the hooked and held nodes on the tree.
  function mark() {
    for (const g of document.querySelectorAll('#tree g.node.hooked, #tree g.node.held')) g.classList.remove('hooked', 'held');
    for (const h of D.hooks) {
      const g = document.querySelector(`#tree g.node[data-index="${h.node}"]`);
      if (g) g.classList.add(h.held ? 'held' : 'hooked');
    }
  }

  function render() {
    mark();
    const hs = held();
    const h = $('dbg-held');
    h.textContent = hs.length ? 'HELD at ' + hs.map((x) => `${label(x.node)} (${x.position})`).join(', ') : '';
    h.dataset.held = hs.map((x) => x.node).join(',');
    $('dbg-hooks').textContent = D.hooks.length ? D.hooks.map((x) => `${label(x.node)} ${x.mode === 'replace' ? 'force ' + x.status : 'break'} (${x.position}, ${x.hits} hit${x.hits === 1 ? '' : 's'})`).join(' · ') : '';
    $('dbg-node').textContent = D.node !== null ? label(D.node) : 'click a node';
    const can = D.allowed && !!D.robot && D.nodes.length > 0;
    for (const id of ['dbg-break', 'dbg-force-s', 'dbg-force-f']) $(id).disabled = !can || D.node === null;
    for (const id of ['dbg-step', 'dbg-step-s', 'dbg-continue']) $(id).disabled = !can || !hs.length;
    $('dbg-clear').disabled = !D.allowed || !D.robot;
  }

  // target is the held node a step or continue acts on: the selected one
  // if it is held, else the only one held.
  function target() {
    const hs = held();
    return hs.find((x) => x.node === D.node) || (hs.length === 1 ? hs[0] : null);
  }

  function args(node, extra) {
    return Object.assign({ node, mission: D.mission, revision: D.revision }, extra || {});
  }

  async function set(extra, what) {
    if (D.node === null) return;
    const d = await hookOp('set', args(D.node, extra));
    if (d && d.ok) { D.mine = true; say(`${what} ${label(D.node)}`); schedule(); }
  }

  async function unlock(extra, what) {
    const t = target();
    if (!t) { say('several nodes are held: click the one to release', true); return; }
    const d = await hookOp('unlock', args(t.node, Object.assign({ position: t.position }, extra)));
    if (d && d.ok) say(`${what} ${label(t.node)}`);
  }

  $('dbg-break').addEventListener('click', () => set({}, 'breakpoint at'));
  $('dbg-force-s').addEventListener('click', () => set({ mode: 'replace', status: 'SUCCESS' }, 'SUCCESS forced on'));
  $('dbg-force-f').addEventListener('click', () => set({ mode: 'replace', status: 'FAILURE' }, 'FAILURE forced on'));
  $('dbg-step').addEventListener('click', () => unlock({}, 'stepped'));
  $('dbg-step-s').addEventListener('click', () => unlock({ status: 'SUCCESS' }, 'ended with SUCCESS:'));
  $('dbg-continue').addEventListener('click', () => unlock({ remove: true }, 'continued'));
  $('dbg-clear').addEventListener('click', async () => {
    const d = await hookOp('clear');
    if (d && d.ok) { D.mine = false; say('every hook removed'); }
  });

  window.addEventListener('botd:select', (ev) => {
    clearTimeout(D.timer);
    Object.assign(D, { robot: ev.detail || '', mission: '', revision: 0, nodes: [], node: null, hooks: [], mine: false, allowed: true });
    say('');
    render();
  });
  window.addEventListener('botd:tree', (ev) => {
    const t = ev.detail || {};
    const changed = t.mission !== D.mission || t.revision !== D.revision;
    D.mission = t.mission || ''; D.revision = t.revision || 0;
    D.nodes = Array.isArray(t.nodes) ? t.nodes : [];
    if (changed) {
      D.node = null; D.hooks = []; D.mine = false;
      if (D.nodes.length) hookOp('list'); // hooks set before this page looked (botctl debug, Groot2)
    }
    render();
  });
  // A hook acted (this page's, botctl debug's, Groot2's): list them again,
  // once for a burst of events.
  let refresh = 0;
  window.addEventListener('botd:hook', () => {
    if (!D.robot || !D.allowed || refresh) return;
    refresh = setTimeout(() => { refresh = 0; hookOp('list'); }, 200);
  });
  window.addEventListener('botd:node', (ev) => { D.node = ev.detail ? ev.detail.index : null; render(); });
  // The tree redraws its nodes (a new tree, a collapse): outline again.
  const nodes = document.querySelector('#tree #nodes');
  if (nodes && window.MutationObserver) new MutationObserver(mark).observe(nodes, { childList: true });
  render();
})();
