'use strict';
// The dashboard's login: exchanges the token for a session cookie, then
// goes to the page asked for. A token in the URL's fragment (the URL
// botctl ui prints) is submitted at once; the fragment never reaches the
// server or its logs.
(function () {
  const form = document.getElementById('login-form');
  const input = document.getElementById('token');
  const error = document.getElementById('login-error');

  function next() {
    const n = new URLSearchParams(location.search).get('next') || '/';
    // Only a path of this site: never another origin.
    return n.startsWith('/') && !n.startsWith('//') && !n.startsWith('/\\') ? n : '/';
  }

  async function login(token) {
    error.hidden = true;
    let res;
    try {
      res = await fetch('/api/login', {
        method: 'POST', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-Botctl': '1' },
        body: JSON.stringify({ token: token }),
      });
    } catch (e) {
      error.textContent = 'cannot reach botctl ui: ' + e;
      error.hidden = false;
      return;
    }
    if (res.ok) {
      location.replace(next());
      return;
    }
    let msg = res.status + ' ' + res.statusText;
    try { const j = await res.json(); if (j.error) msg = j.error.message; } catch (e) { /* not JSON */ }
    error.textContent = msg;
    error.hidden = false;
    input.select();
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    login(input.value);
  });
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    const token = decodeURIComponent(m[1]);
    history.replaceState(null, '', location.pathname + location.search);
    input.value = token;
    login(token);
  }
})();
