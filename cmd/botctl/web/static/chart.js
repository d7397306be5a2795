'use strict';
// TickChart draws tick duration and jitter (µs) over the last samples on a
// canvas, by hand: a few grid lines with labels and one line per series.
(function () {
  const MAX = 180; // samples kept (metrics come once a second)

  function fmtUs(us) {
    if (!isFinite(us)) return '–';
    if (us >= 1e6) return (us / 1e6).toFixed(us >= 1e7 ? 0 : 1) + ' s';
    if (us >= 1000) return (us / 1000).toFixed(us >= 1e4 ? 0 : 1) + ' ms';
    return Math.round(us) + ' µs';
  }

  // niceMax rounds up to 1, 2 or 5 times a power of ten.
  function niceMax(v) {
    if (!(v > 0)) return 100;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
    return 10 * p;
  }

  class TickChart {
    constructor(canvas) {
      this.canvas = canvas;
      this.samples = [];
      this.series = [
        { key: 'dur', color: '#58a6ff', width: 2 },
        { key: 'last', color: '#2fbf71', width: 1.2 },
        { key: 'jit', color: '#f5a524', width: 2 },
      ];
      this.pending = false;
      if (window.ResizeObserver) new ResizeObserver(() => this.draw()).observe(canvas);
    }

    static sample(m) {
      const t = (m && m.tick) || {};
      const num = (x) => (typeof x === 'number' && isFinite(x) ? x : NaN);
      return { dur: num(t.duration_p99_us), last: num(t.last_us), jit: num(t.jitter_p99_us), overruns: num(t.overruns), hz: num(t.hz) };
    }

    set(list) {
      this.samples = (Array.isArray(list) ? list : []).map(TickChart.sample).slice(-MAX);
      this.schedule();
    }

    add(m) {
      this.samples.push(TickChart.sample(m));
      if (this.samples.length > MAX) this.samples.shift();
      this.schedule();
    }

    clear() { this.samples = []; this.schedule(); }

    schedule() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.draw(); });
    }

    draw() {
      const c = this.canvas;
      const dpr = window.devicePixelRatio || 1;
      const W = c.clientWidth || 300, H = c.clientHeight || 140;
      if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) {
        c.width = Math.round(W * dpr); c.height = Math.round(H * dpr);
      }
      const g = c.getContext('2d');
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, W, H);
      const L = 52, R = 6, T = 8, B = 18;
      const pw = W - L - R, ph = H - T - B;
      let top = 0;
      for (const s of this.samples) for (const se of this.series) if (s[se.key] > top) top = s[se.key];
      top = niceMax(top * 1.1);
      g.font = '11px ' + (getComputedStyle(document.body).fontFamily || 'sans-serif');
      g.textBaseline = 'middle';
      g.textAlign = 'right';
      for (let i = 0; i <= 4; i++) {
        const v = (top * i) / 4, y = T + ph - (ph * i) / 4;
        g.strokeStyle = i === 0 ? '#3a4453' : '#232b36';
        g.lineWidth = 1;
        g.beginPath(); g.moveTo(L, Math.round(y) + 0.5); g.lineTo(L + pw, Math.round(y) + 0.5); g.stroke();
        g.fillStyle = '#8a95a8';
        g.fillText(fmtUs(v), L - 6, y);
      }
      g.textAlign = 'left';
      g.textBaseline = 'alphabetic';
      g.fillStyle = '#8a95a8';
      g.fillText(`last ${MAX} s`, L, H - 4);
      if (!this.samples.length) {
        g.textAlign = 'center';
        g.fillText('waiting for metrics…', L + pw / 2, T + ph / 2);
        return;
      }
      const n = this.samples.length;
      const x = (i) => L + pw - ((n - 1 - i) * pw) / (MAX - 1);
      const y = (v) => T + ph - (Math.min(v, top) / top) * ph;
      for (const se of this.series) {
        g.strokeStyle = se.color;
        g.lineWidth = se.width;
        g.lineJoin = 'round';
        g.beginPath();
        let pen = false;
        this.samples.forEach((s, i) => {
          const v = s[se.key];
          if (!isFinite(v)) { pen = false; return; }
          if (pen) g.lineTo(x(i), y(v)); else { g.moveTo(x(i), y(v)); pen = true; }
        });
        g.stroke();
      }
    }
  }

  window.TickChart = TickChart;
  window.fmtUs = fmtUs;
})();
