'use strict';
// TreeView draws a behavior tree as an SVG graph: a tidy layout (left to
// right or top down) computed here, pan and zoom, and node colors that
// follow the status letters (R S F E I) as they stream in.
(function () {
  const SVGNS = 'http://www.w3.org/2000/svg';
  const STATUS = { R: 'running', S: 'success', F: 'failure', E: 'error', I: 'idle' };
  const STATUS_CLASSES = Object.values(STATUS).map((s) => 'st-' + s);
  const NODE = { minW: 92, maxW: 270, hName: 44, hPlain: 30, padL: 15, padR: 10 };
  const GAP = { lr: { breadth: 10, depth: 34 }, td: { breadth: 14, depth: 40 } };
  // Below this scale labels are hard to read: fit collapses subtrees
  // (deepest first) until the tree fits at it, and otherwise shows the
  // tree at it from the top left (pan to see the rest).
  const MIN_SCALE = 0.6;

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVGNS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  class TreeView {
    constructor(svg, opts) {
      this.svg = svg;
      this.vp = svg.querySelector('#viewport');
      this.gEdges = svg.querySelector('#edges');
      this.gNodes = svg.querySelector('#nodes');
      this.opts = opts || {};
      this.orientation = 'lr';
      try { this.orientation = localStorage.getItem('botd.layout') === 'td' ? 'td' : 'lr'; } catch (e) { /* private mode */ }
      this.types = {};
      this.collapsed = new Set(); // indexes of collapsed nodes
      this.clear();
      this.k = 1; this.tx = 0; this.ty = 0;
      this.userMoved = false;
      this.measureCtx = document.createElement('canvas').getContext('2d');
      this.bindPanZoom();
      if (window.ResizeObserver) {
        new ResizeObserver(() => { if (!this.userMoved) this.fit(); }).observe(svg);
      }
    }

    clear() {
      this.nodes = [];        // tree nodes in message order
      this.byIndex = new Map(); // node index → {node, g, edge, status, ...}
      this.size = { w: 0, h: 0 };
      this.key = '';
      if (this.gEdges) this.gEdges.textContent = '';
      if (this.gNodes) this.gNodes.textContent = '';
    }

    // setTree draws a new tree (a tree message: {mission, revision, nodes}).
    setTree(tree) {
      const nodes = Array.isArray(tree && tree.nodes) ? tree.nodes : [];
      const key = (tree && tree.mission) + '/' + (tree && tree.revision) + '/' + nodes.length;
      const same = key === this.key;
      if (!same) { this.collapsed = new Set(); this.autoDone = false; }
      this.clear();
      this.key = key;
      this.mission = tree && tree.mission;
      this.svg.dataset.mission = this.mission || '';
      this.svg.dataset.nodes = String(nodes.length);
      if (!nodes.length) return;
      this.nodes = nodes.map((n, pos) => ({
        index: Number.isInteger(n && n.index) ? n.index : pos,
        parent: Number.isInteger(n && n.parent) ? n.parent : -1,
        type: String((n && n.type) || '?'),
        name: String((n && n.name) || ''),
        id: String((n && n.id) || ''),
        path: String((n && n.path) || ''),
      }));
      this.layout();
      this.render();
      if (!same || !this.userMoved) { this.userMoved = false; this.fit(); }
    }

    setTypes(types) {
      this.types = types || {};
      for (const it of this.byIndex.values()) this.applyCategory(it);
    }

    applyCategory(it) {
      if (!it.g) return; // hidden under a collapsed node
      const cat = this.types[it.node.type];
      for (const c of ['composite', 'decorator', 'condition', 'action']) it.g.classList.toggle('cat-' + c, cat === c);
    }

    setOrientation(o) {
      this.orientation = o === 'td' ? 'td' : 'lr';
      try { localStorage.setItem('botd.layout', this.orientation); } catch (e) { /* ignore */ }
      if (!this.nodes.length) return;
      this.relayout();
      this.userMoved = false;
      this.fit();
    }

    // relayout lays the tree out again (orientation or collapsed nodes
    // changed), keeping statuses and reasons.
    relayout() {
      const statuses = new Map([...this.byIndex].map(([i, it]) => [i, it.status]));
      const reasons = new Map([...this.byIndex].filter(([, it]) => it.reason).map(([i, it]) => [i, it.reason]));
      const nodes = this.nodes;
      this.gEdges.textContent = ''; this.gNodes.textContent = ''; this.byIndex = new Map();
      this.nodes = nodes;
      this.layout();
      this.render();
      for (const [i, s] of statuses) this.setStatus(i, s);
      for (const [i, r] of reasons) this.setReason(i, r);
      this.svg.dataset.collapsed = String(this.collapsed.size);
      if (this.opts.onLayout) this.opts.onLayout(this);
    }

    // toggle collapses or expands the subtree under a node.
    toggle(index) {
      if (this.collapsed.has(index)) this.collapsed.delete(index); else this.collapsed.add(index);
      this.autoDone = true; // the operator decides from now on
      this.relayout();
      if (!this.userMoved) this.fit();
    }

    expandAll() {
      this.collapsed = new Set();
      this.autoDone = true;
      this.relayout();
      this.userMoved = false;
      this.fit();
    }

    // hiddenCount is how many nodes collapsed subtrees hide.
    hiddenCount() { let n = 0; for (const it of this.byIndex.values()) if (it.hidden) n++; return n; }

    // Text width of s in the given font, in SVG units.
    measure(s, font) {
      this.measureCtx.font = font;
      return this.measureCtx.measureText(s).width;
    }

    fit1(s, font, max) {
      if (this.measure(s, font) <= max) return s;
      let lo = 0, hi = s.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.measure(s.slice(0, mid) + '…', font) <= max) lo = mid; else hi = mid - 1;
      }
      return s.slice(0, lo) + '…';
    }

    // layout places every node: breadth by a contour-based tidy tree
    // (subtrees packed as close as their outlines allow, parents centred
    // over their children), depth by levels.
    layout() {
      const family = getComputedStyle(document.body).fontFamily || 'sans-serif';
      const fType = '700 13px ' + family, fName = '12px ' + family, fIdx = '10px monospace';
      const td = this.orientation === 'td';
      const gap = td ? GAP.td : GAP.lr;
      const items = new Map();
      for (const n of this.nodes) {
        if (items.has(n.index)) continue; // duplicate index: keep the first
        const maxText = NODE.maxW - NODE.padL - NODE.padR;
        const type = this.fit1(n.type, fType, maxText - 30);
        const name = this.fit1(n.name, fName, maxText);
        const w = Math.min(NODE.maxW, Math.max(NODE.minW,
          NODE.padL + NODE.padR + Math.max(this.measure(type, fType) + 8 + this.measure('#' + n.index, fIdx), n.name ? this.measure(name, fName) : 0)));
        const h = n.name ? NODE.hName : NODE.hPlain;
        items.set(n.index, { node: n, type, name, w, h, kids: [], depth: 0, b: 0, x: 0, y: 0, status: 'I' });
      }
      // Children lists; nodes whose parent is unknown, or that sit on a
      // cycle, become roots so that nothing is lost.
      const roots = [];
      for (const it of items.values()) {
        const p = items.get(it.node.parent);
        if (p && p !== it) p.kids.push(it); else roots.push(it);
      }
      const seen = new Set();
      const all = [];
      const visit = (root) => {
        const stack = [[root, 0]];
        while (stack.length) {
          const [it, d] = stack.pop();
          if (seen.has(it)) continue;
          seen.add(it); it.depth = d; all.push(it);
          it.kids = it.kids.filter((k) => !seen.has(k));
          for (let i = it.kids.length - 1; i >= 0; i--) stack.push([it.kids[i], d + 1]);
        }
      };
      roots.forEach(visit);
      for (const it of items.values()) if (!seen.has(it)) { roots.push(it); visit(it); }
      for (const it of all) it.kids = it.kids.filter((k) => k.depth === it.depth + 1);
      // Collapsed nodes keep their children (allKids, hidden counts) but
      // are laid out as leaves; what is below them is not drawn.
      for (let i = all.length - 1; i >= 0; i--) {
        const it = all[i];
        it.allKids = it.kids;
        it.below = it.kids.reduce((n, k) => n + 1 + k.below, 0);
      }
      const order = [];
      const hide = new Set();
      for (const it of all) {
        if (hide.has(it)) { it.hidden = true; for (const k of it.allKids) hide.add(k); continue; }
        it.hidden = false;
        order.push(it);
        if (this.collapsed.has(it.node.index) && it.allKids.length) {
          it.kids = [];
          for (const k of it.allKids) hide.add(k);
        }
      }
      this.maxDepth = all.reduce((m, it) => Math.max(m, it.depth), 0);

      const bsize = (it) => (td ? it.w : it.h);
      const dsize = (it) => (td ? it.h : it.w);
      // Post-order contours: lo/hi per relative depth, around the node's
      // own breadth centre.
      const contour = new Map();
      for (let i = order.length - 1; i >= 0; i--) {
        const it = order[i];
        const half = bsize(it) / 2;
        if (!it.kids.length) { contour.set(it, { lo: [-half], hi: [half] }); continue; }
        let acc = null;
        const offs = [];
        for (const k of it.kids) {
          const c = contour.get(k);
          if (!acc) { offs.push(0); acc = { lo: c.lo.slice(), hi: c.hi.slice() }; continue; }
          let s = -Infinity;
          const m = Math.min(acc.hi.length, c.lo.length);
          for (let d = 0; d < m; d++) s = Math.max(s, acc.hi[d] + gap.breadth - c.lo[d]);
          offs.push(s);
          for (let d = 0; d < c.lo.length; d++) {
            if (d < acc.lo.length) {
              acc.lo[d] = Math.min(acc.lo[d], c.lo[d] + s);
              acc.hi[d] = Math.max(acc.hi[d], c.hi[d] + s);
            } else { acc.lo.push(c.lo[d] + s); acc.hi.push(c.hi[d] + s); }
          }
          contour.delete(k);
        }
        contour.delete(it.kids[0]);
        const mid = (offs[0] + offs[offs.length - 1]) / 2;
        it.kids.forEach((k, j) => { k.rel = offs[j] - mid; });
        const lo = [-half], hi = [half];
        for (let d = 0; d < acc.lo.length; d++) { lo.push(acc.lo[d] - mid); hi.push(acc.hi[d] - mid); }
        contour.set(it, { lo, hi });
      }
      // Roots side by side, like the children of an invisible parent.
      let at = 0, prevHi = null;
      for (const r of roots) {
        const c = contour.get(r);
        let s = 0;
        if (prevHi) {
          s = -Infinity;
          for (let d = 0; d < Math.min(prevHi.length, c.lo.length); d++) s = Math.max(s, prevHi[d] + gap.breadth * 3 - c.lo[d]);
          if (!isFinite(s)) s = at;
        }
        r.b = s;
        const hi = c.hi.map((x) => x + s);
        if (prevHi) for (let d = 0; d < prevHi.length; d++) hi[d] = d < hi.length ? Math.max(hi[d], prevHi[d]) : prevHi[d];
        prevHi = hi; at = s;
      }
      for (const it of order) for (const k of it.kids) k.b = it.b + k.rel;
      // Depth levels: each as deep as its deepest node.
      const levels = [];
      for (const it of order) levels[it.depth] = Math.max(levels[it.depth] || 0, dsize(it));
      const levelAt = [0];
      for (let d = 1; d < levels.length; d++) levelAt[d] = levelAt[d - 1] + levels[d - 1] + gap.depth;
      let minB = Infinity, maxB = -Infinity;
      for (const it of order) {
        minB = Math.min(minB, it.b - bsize(it) / 2);
        maxB = Math.max(maxB, it.b + bsize(it) / 2);
      }
      for (const it of order) {
        const b = it.b - minB;
        if (td) { it.x = b - it.w / 2; it.y = levelAt[it.depth]; } else { it.x = levelAt[it.depth]; it.y = b - it.h / 2; }
      }
      const depthTotal = levelAt[levels.length - 1] + levels[levels.length - 1];
      this.size = td ? { w: maxB - minB, h: depthTotal } : { w: depthTotal, h: maxB - minB };
      this.order = order;
      this.byIndex = items;
    }

    render() {
      const td = this.orientation === 'td';
      const edges = document.createDocumentFragment();
      const nodes = document.createDocumentFragment();
      for (const it of this.order) {
        for (const k of it.kids) {
          let d;
          if (td) {
            const x1 = it.x + it.w / 2, y1 = it.y + it.h, x2 = k.x + k.w / 2, y2 = k.y, my = (y1 + y2) / 2;
            d = `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`;
          } else {
            const x1 = it.x + it.w, y1 = it.y + it.h / 2, x2 = k.x, y2 = k.y + k.h / 2, mx = x1 + Math.max(16, (x2 - x1) / 2);
            d = `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
          }
          k.edge = el('path', { class: 'edge st-idle', d }, edges);
        }
        const n = it.node;
        const g = el('g', { class: 'node st-idle', 'data-index': n.index, 'data-status': 'idle', transform: `translate(${it.x},${it.y})` }, nodes);
        el('rect', { class: 'box', width: it.w, height: it.h, rx: 6 }, g);
        el('rect', { class: 'bar', x: 4, y: 4, width: 4, height: it.h - 8, rx: 2 }, g);
        const t = el('text', { class: 'type', x: NODE.padL, y: n.name ? 18 : 19.5 }, g);
        t.textContent = it.type;
        const idx = el('text', { class: 'idx', x: it.w - 7, y: n.name ? 16 : 18.5, 'text-anchor': 'end' }, g);
        idx.textContent = '#' + n.index;
        if (n.name) {
          const nm = el('text', { class: 'name', x: NODE.padL, y: 35 }, g);
          nm.textContent = it.name;
        }
        if (it.allKids.length) {
          const folded = this.collapsed.has(n.index);
          const tx = td ? it.w / 2 : it.w, ty = td ? it.h : it.h / 2;
          const tg = el('g', { class: 'toggle' + (folded ? ' folded' : ''), transform: `translate(${tx},${ty})` }, g);
          tg.setAttribute('data-index', n.index);
          el('circle', { r: folded ? 10 : 7 }, tg);
          const tt = el('text', { 'text-anchor': 'middle', y: 4 }, tg);
          tt.textContent = folded ? '+' + it.below : '−';
          const tip = el('title', {}, tg);
          tip.textContent = folded ? `expand: ${it.below} node${it.below === 1 ? '' : 's'} below` : 'collapse this subtree';
          tg.addEventListener('click', (ev) => { ev.stopPropagation(); this.toggle(n.index); });
          tg.addEventListener('dblclick', (ev) => ev.stopPropagation());
        }
        it.title = el('title', {}, g);
        it.g = g;
        this.applyCategory(it);
        this.updateTitle(it);
        g.addEventListener('click', (ev) => { ev.stopPropagation(); if (this.opts.onSelect) this.opts.onSelect(n, STATUS[it.status] || 'idle'); });
      }
      this.gEdges.appendChild(edges);
      this.gNodes.appendChild(nodes);
    }

    updateTitle(it) {
      if (!it.title) return;
      const n = it.node;
      it.title.textContent = `#${n.index} ${n.type}${n.name ? ' "' + n.name + '"' : ''}\nstatus: ${STATUS[it.status] || it.status}` +
        (it.reason ? `\nwhy: ${it.reason.message}${it.reason.code ? ' [' + it.reason.code + ']' : ''}` : '') +
        (n.path ? `\npath: ${n.path}` : '') + `\nid: ${n.id}`;
    }

    // setReason says why a node failed (a status message's reasons); it
    // lasts while the node stays failed. Unknown indexes are ignored.
    setReason(index, reason) {
      const it = this.byIndex.get(index);
      if (!it || !reason || typeof reason.message !== 'string') return false;
      it.reason = { message: reason.message, code: String(reason.code || ''), time: reason.time };
      if (it.hidden && this.reveal(index)) return true; // reveal lays out again, reason included
      if (!it.g) return true;
      it.g.classList.add('has-reason');
      it.g.setAttribute('data-reason', reason.message);
      this.updateTitle(it);
      return true;
    }

    // reveal expands the collapsed nodes above index, so a node with
    // something to say (a failure) is in view; it reports whether it did.
    reveal(index) {
      const parents = new Map(this.nodes.map((n) => [n.index, n.parent]));
      let changed = false;
      for (let p = parents.get(index), guard = 0; p !== undefined && p >= 0 && guard < this.nodes.length; p = parents.get(p), guard++) {
        if (this.collapsed.delete(p)) changed = true;
      }
      if (changed) {
        this.relayout();
        if (!this.userMoved) this.fit();
      }
      return changed;
    }

    clearReason(it) {
      if (!it.reason) return;
      it.reason = null;
      if (!it.g) return;
      it.g.classList.remove('has-reason');
      it.g.removeAttribute('data-reason');
      this.updateTitle(it);
    }

    clearReasons() { for (const it of this.byIndex.values()) this.clearReason(it); }

    reasonOf(index) { const it = this.byIndex.get(index); return it && it.reason; }

    // setStatus colours one node (letter R S F E I); unknown letters and
    // indexes are ignored (the caller reports them).
    setStatus(index, letter) {
      const it = this.byIndex.get(index);
      if (!it || it.status === letter || !STATUS[letter]) return !!it && !!STATUS[letter];
      it.status = letter;
      if (!it.g) { if (letter !== 'F' && letter !== 'E') it.reason = null; return true; } // hidden: kept for when it shows
      const cls = 'st-' + STATUS[letter];
      it.g.classList.remove(...STATUS_CLASSES);
      it.g.classList.add(cls);
      it.g.setAttribute('data-status', STATUS[letter]);
      if (it.edge) { it.edge.classList.remove(...STATUS_CLASSES); it.edge.classList.add(cls); }
      if (letter !== 'F' && letter !== 'E') this.clearReason(it);
      this.updateTitle(it);
      return true;
    }

    // setKeyframe applies one letter per node, in node-index order.
    setKeyframe(s) {
      let bad = 0;
      for (let i = 0; i < s.length; i++) if (!this.setStatus(i, s[i])) bad++;
      return bad;
    }

    count() { return this.byIndex.size; }

    // statusOf is a node's status letter ('' for an unknown index).
    statusOf(index) { const it = this.byIndex.get(index); return it ? it.status || 'I' : ''; }

    // View transform.
    apply() {
      this.vp.setAttribute('transform', `translate(${this.tx},${this.ty}) scale(${this.k})`);
      if (this.opts.onZoom) this.opts.onZoom(this.k);
    }

    // fit shows the whole tree if it fits at a readable scale; else it
    // fits the width (the rest is a pan away, from the top). A tree too
    // wide even for that gets its deepest subtrees collapsed (once per
    // tree: then the operator's toggles decide), and what still does not
    // fit is shown at the minimum scale from the top left.
    fit() {
      const r = this.svg.getBoundingClientRect();
      if (!r.width || !r.height || !this.size.w) { this.apply(); return; }
      const m = 24;
      const kw = () => Math.min((r.width - 2 * m) / this.size.w, 1.25);
      if (kw() < MIN_SCALE && !this.autoDone) {
        this.autoDone = true;
        this.autoCollapse(() => kw() >= MIN_SCALE);
      }
      let k = Math.min(kw(), (r.height - 2 * m) / this.size.h);
      if (k < MIN_SCALE) k = kw();
      this.k = Math.max(k, MIN_SCALE);
      const w = this.size.w * this.k, h = this.size.h * this.k;
      this.tx = w <= r.width - 2 * m ? (r.width - w) / 2 : m;
      this.ty = h <= r.height - 2 * m ? (r.height - h) / 2 : m;
      const root = this.order && this.order[0];
      if (h > r.height - 2 * m && root && this.orientation !== 'td') {
        // Too tall: the root (half-way down in this layout) in the middle.
        const want = r.height / 2 - (root.y + root.h / 2) * this.k;
        this.ty = Math.min(m, Math.max(r.height - m - h, want));
      }
      this.apply();
    }

    // autoCollapse collapses every subtree at depth d and below, from the
    // deepest d up, until fits() (or only the root's children are left).
    autoCollapse(fits) {
      const base = new Set(this.collapsed);
      for (let d = this.maxDepth - 1; d >= 1; d--) {
        const next = new Set(base);
        for (const it of this.byIndex.values()) if (it.depth >= d && it.allKids && it.allKids.length) next.add(it.node.index);
        if (next.size === this.collapsed.size) continue;
        this.collapsed = next;
        this.relayout();
        if (fits()) return;
      }
    }

    zoomAt(factor, cx, cy) {
      const k2 = Math.min(4, Math.max(0.02, this.k * factor));
      this.tx = cx - (cx - this.tx) * (k2 / this.k);
      this.ty = cy - (cy - this.ty) * (k2 / this.k);
      this.k = k2;
      this.userMoved = true;
      this.apply();
    }

    zoomCenter(factor) {
      const r = this.svg.getBoundingClientRect();
      this.zoomAt(factor, r.width / 2, r.height / 2);
    }

    // focus centres a node and flashes it.
    focus(index) {
      if (this.byIndex.get(index) && this.byIndex.get(index).hidden) this.reveal(index);
      const it = this.byIndex.get(index);
      if (!it || !it.g) return false;
      const r = this.svg.getBoundingClientRect();
      if (this.k < 0.8) this.k = 0.8;
      this.tx = r.width / 2 - (it.x + it.w / 2) * this.k;
      this.ty = r.height / 2 - (it.y + it.h / 2) * this.k;
      this.userMoved = true;
      this.apply();
      it.g.classList.add('flash');
      setTimeout(() => it.g.classList.remove('flash'), 1200);
      return true;
    }

    bindPanZoom() {
      const svg = this.svg;
      svg.addEventListener('wheel', (e) => {
        e.preventDefault();
        const r = svg.getBoundingClientRect();
        const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
        this.zoomAt(Math.exp(-dy * 0.0015), e.clientX - r.left, e.clientY - r.top);
      }, { passive: false });
      let drag = null;
      svg.addEventListener('pointerdown', (e) => {
        if (e.button !== 0) return;
        drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, id: e.pointerId, moved: false };
      });
      svg.addEventListener('pointermove', (e) => {
        if (!drag || e.pointerId !== drag.id) return;
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 3) return;
        if (!drag.moved) { drag.moved = true; svg.setPointerCapture(e.pointerId); svg.classList.add('panning'); }
        this.tx = drag.tx + dx; this.ty = drag.ty + dy;
        this.userMoved = true;
        this.apply();
      });
      const end = (e) => {
        if (!drag || e.pointerId !== drag.id) return;
        if (drag.moved) { try { svg.releasePointerCapture(e.pointerId); } catch (err) { /* gone */ } }
        svg.classList.remove('panning');
        drag = null;
      };
      svg.addEventListener('pointerup', end);
      svg.addEventListener('pointercancel', end);
      svg.addEventListener('dblclick', (e) => {
        if (e.target.closest && e.target.closest('.node')) return;
        this.userMoved = false; this.fit();
      });
    }
  }

  window.TreeView = TreeView;
  window.TreeStatus = STATUS;
})();
