// Package web is the dashboard of `botctl ui`: an HTTP server that watches
// robots through a ground.Client and shows them in a browser.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary (no
// build step, nothing fetched from the internet). It receives everything
// over one server-sent-event stream per tab (GET /api/stream?robot=ID):
// the robot list, the active tree, node-status keyframes and deltas, the
// state, the blackboard, events, metrics and the payloads that could not
// be decoded. Commands are REST calls (POST /api/robots/{robot}/...) that
// answer with the robot's reply.
//
// One Ground.Watch per robot is shared by every tab (a second Watch of the
// same robot would replace the first); it starts with the first tab that
// looks at the robot and ends a while after the last one left. The hub
// tracks the status sequence numbers and asks the robot for a keyframe
// (state.request) when one is missing, so a page never shows a tree
// coloured from a lost delta. When it starts watching a robot it asks for
// the events the robot keeps (events.request) and merges them with the
// live ones (ground.History), so a tab opened late has the history. The
// status frames carry the nodes' failure reasons; the page shows them on
// the nodes and the state's last_failure in a panel. The dashboard starts
// without a broker; the stream tells the page when the broker is up.
//
// What it must never do: crash or stop on a payload it does not expect
// (it shows what could not be decoded instead), block the Ground's
// callbacks on a slow browser (a tab that falls behind is disconnected and
// reconnects with a fresh snapshot), or accept a command from another web
// site (POSTs need a same-origin request with the X-Botctl header, and the
// Host must be this machine's, against DNS rebinding), or answer anyone
// without a session: the API and the stream need the session cookie a
// browser gets at /login for the token botctl ui printed (auth.go), and
// off loopback the dashboard serves only HTTPS.
//
// Files: server.go (options, routes, guards), auth.go (the login), hub.go (watches and
// tabs), view.go (one robot's picture and its fan-out), status.go (status
// tracking and gap detection), stream.go (SSE), commands.go and upload.go
// (REST commands and mission upload), fleet.go and fleet_http.go (the
// fleet summary of every robot, its stream GET /api/fleet and the
// commands to a selection of robots), static/ (the page: app.js, tree.js
// for the graph, chart.js for the tick chart, fleet.js for the
// virtualized robot list, map.js for the canvas map).
package web
