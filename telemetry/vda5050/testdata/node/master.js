// A VDA 5050 master control written with vda-5050-lib 1.4.0 (someone
// else's implementation of the protocol): it drives a botd robot through
// an order that completes, an order botd refuses, a pause and a resume,
// a cancelOrder, an order update stitched onto a running order, and a
// pause and resume on an update's own edge.
// Every message the library receives is validated by it against its own
// 2.0 schemas. Each scenario prints one JSON line {"scenario", "ok", ...};
// the process exits 0 when every scenario passed.
//
// Environment: BROKER (mqtt://127.0.0.1:PORT, or mqtts:// with CA_FILE),
// INTERFACE, MANUFACTURER, SERIAL, MAP; optional USERNAME, PASSWORD,
// CLIENT_ID (a broker that wants a client id prefix), SCENARIOS (the
// scenarios to run, comma-separated; all without it).
"use strict";
const fs = require("fs");
const { MasterController, createUuid } = require("vda-5050-lib");

const agv = { manufacturer: process.env.MANUFACTURER, serialNumber: process.env.SERIAL };
const mapId = process.env.MAP;
const transport = { brokerUrl: process.env.BROKER };
if (process.env.USERNAME) { transport.username = process.env.USERNAME; transport.password = process.env.PASSWORD; }
if (process.env.CA_FILE) transport.tlsOptions = { ca: fs.readFileSync(process.env.CA_FILE) };
const mc = new MasterController(
    { interfaceName: process.env.INTERFACE, transport, vdaVersion: "2.0.0" },
    { targetAgvs: agv });
// vda-5050-lib 1.4.0 draws a random client id and has no option for it;
// the field is read when it connects.
if (process.env.CLIENT_ID) mc.clientId = process.env.CLIENT_ID;
const only = process.env.SCENARIOS ? new Set(process.env.SCENARIOS.split(",")) : null;

function report(scenario, ok, detail) {
    console.log(JSON.stringify({ scenario, ok, ...detail }));
}

let lastState;
function nextState(pred, what, ms = 30000) {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("timed out waiting for " + what)), ms);
        const check = s => { if (pred(s)) { clearTimeout(timer); waiters.delete(check); resolve(s); } };
        waiters.add(check);
        if (lastState) check(lastState);
    });
}
const waiters = new Set();

function node(id, seq, x, y, released = true, actions = []) {
    return { nodeId: id, sequenceId: seq, released, actions,
        nodePosition: { x, y, mapId, allowedDeviationXY: 0.15 } };
}
function edge(seq, from, to, released = true, actions = []) {
    return { edgeId: `${from}-${to}`, sequenceId: seq, startNodeId: from, endNodeId: to, released, actions, maxSpeed: 0.3 };
}

// assign sends an order and resolves with how it was processed.
function assign(order, handlers = {}) {
    return new Promise((resolve, reject) => {
        const traversed = [];
        mc.assignOrder(agv, order, {
            onOrderProcessed: (error, byCancelation, active, ctx) =>
                resolve({ error, byCancelation, active, traversed, state: ctx.state }),
            onNodeTraversed: n => { traversed.push(n.nodeId); handlers.onNodeTraversed && handlers.onNodeTraversed(n); },
            onEdgeTraversing: (e, s, t, changes) => handlers.onEdgeTraversing && handlers.onEdgeTraversing(e, changes),
            onActionStateChanged: (as) => handlers.onActionStateChanged && handlers.onActionStateChanged(as),
        }).catch(reject);
    });
}

function instant(actionType, actionParameters = []) {
    return new Promise((resolve, reject) => {
        const action = { actionId: createUuid(), actionType, blockingType: "HARD", actionParameters };
        mc.initiateInstantActions(agv, { instantActions: [action] }, {
            onActionStateChanged: as => {
                if (as.actionStatus === "FINISHED" || as.actionStatus === "FAILED") resolve(as);
            },
            onActionError: err => resolve({ actionStatus: "FAILED", error: err }),
        }).catch(reject);
    });
}

async function main() {
    await mc.start();
    await mc.subscribe("state", agv, s => { lastState = s; for (const w of [...waiters]) w(s); });
    // The state is sent on change and as a heartbeat: ask for one now.
    await instant("stateRequest");
    const s0 = await nextState(s => s.agvPosition && s.agvPosition.positionInitialized, "a state with a position");
    let x = s0.agvPosition.x, y = s0.agvPosition.y;
    let failed = false;
    const run = async (name, fn) => {
        if (only && !only.has(name)) return;
        try {
            const detail = await fn();
            report(name, true, detail);
        } catch (e) {
            failed = true;
            report(name, false, { error: String(e && e.stack || e) });
        }
    };
    // The state's position is where the robot is now; each order starts there.
    const here = async () => {
        const s = await nextState(s => s.agvPosition && !s.driving, "the robot standing");
        x = s.agvPosition.x; y = s.agvPosition.y;
    };

    await run("refused", async () => {
        const o = { orderId: createUuid(), orderUpdateId: 0, nodes: [node("r0", 0, x, y), node("r1", 2, x + 1, y)],
            edges: [edge(1, "r0", "r1")] };
        o.nodes[1].nodePosition.mapId = "another-map";
        const r = await assign(o);
        if (!r.error || r.error.errorType !== "noRouteError") throw new Error("not refused: " + JSON.stringify(r.error));
        return { errorType: r.error.errorType, description: r.error.errorDescription };
    });

    await run("complete", async () => {
        await here();
        const o = { orderId: createUuid(), orderUpdateId: 0,
            nodes: [node("a", 0, x, y), node("b", 2, x + 0.5, y), node("c", 4, x + 0.5, y + 0.5, true,
                [{ actionId: createUuid(), actionType: "beep", blockingType: "HARD", actionParameters: [{ key: "ms", value: 200 }] }])],
            edges: [edge(1, "a", "b", true,
                [{ actionId: createUuid(), actionType: "beep", blockingType: "NONE", actionParameters: [{ key: "ms", value: 300 }] }]),
                edge(3, "b", "c")] };
        // Node c has an orientation: the robot arrives facing north (pi/2)
        // and turns to face west.
        Object.assign(o.nodes[2].nodePosition, { theta: Math.PI, allowedDeviationTheta: 0.1 });
        // The HARD action's states as they change: its prepare node makes
        // it INITIALIZING before RUNNING.
        const seen = [];
        const hard = o.nodes[2].actions[0].actionId;
        const r = await assign(o, { onActionStateChanged: as => {
            if (as.actionId === hard && seen[seen.length - 1] !== as.actionStatus) seen.push(as.actionStatus);
        } });
        if (r.error || r.byCancelation || r.active) throw new Error("order ended " + JSON.stringify(r));
        const order = ["WAITING", "INITIALIZING", "RUNNING", "FINISHED"];
        if (seen.some((st, i) => i > 0 && order.indexOf(st) <= order.indexOf(seen[i - 1])) || seen[seen.length - 1] !== "FINISHED")
            throw new Error("action states out of order: " + seen);
        const p = r.state.agvPosition;
        const d = Math.hypot(p.x - (x + 0.5), p.y - (y + 0.5));
        if (r.traversed.join(",") !== "a,b,c" || d > 0.3) throw new Error(`traversed ${r.traversed} ending ${d} m from c`);
        const actions = r.state.actionStates.filter(a => a.actionType === "beep").map(a => a.actionStatus);
        if (actions.join(",") !== "FINISHED,FINISHED") throw new Error("actions " + actions);
        // The heading at c, off theta by at most allowedDeviationTheta
        // (and what the robot drifts while it stops).
        const off = Math.abs(Math.atan2(Math.sin(p.theta - Math.PI), Math.cos(p.theta - Math.PI)));
        if (off > 0.15) throw new Error(`heading ${p.theta} at c, ${off} rad off theta`);
        return { traversed: r.traversed, distance: d, actions, thetaOff: off, hardActionStates: seen };
    });

    await run("pause-resume", async () => {
        await here();
        let paused = false;
        const o = { orderId: createUuid(), orderUpdateId: 0, nodes: [node("p0", 0, x, y), node("p1", 2, x - 0.8, y)],
            edges: [edge(1, "p0", "p1")] };
        const done = assign(o);
        await nextState(s => s.orderId === o.orderId && s.driving, "driving");
        const a1 = await instant("startPause");
        const sp = await nextState(s => s.paused, "paused");
        await nextState(s => s.paused && !s.driving, "stopped while paused");
        const a2 = await instant("stopPause");
        await nextState(s => !s.paused && s.driving, "driving again");
        const r = await done;
        if (a1.actionStatus !== "FINISHED" || a2.actionStatus !== "FINISHED" || r.error || r.byCancelation) throw new Error(JSON.stringify({ a1, a2, r }));
        paused = sp.paused;
        return { paused, traversed: r.traversed };
    });

    await run("cancel", async () => {
        await here();
        const o = { orderId: createUuid(), orderUpdateId: 0, nodes: [node("k0", 0, x, y), node("k1", 2, x + 1.5, y)],
            edges: [edge(1, "k0", "k1")] };
        const done = assign(o);
        await nextState(s => s.orderId === o.orderId && s.driving, "driving");
        const a = await instant("cancelOrder");
        const r = await done;
        const st = await nextState(s => !s.driving, "stopped");
        if (a.actionStatus !== "FINISHED" || !r.byCancelation || r.active) throw new Error(JSON.stringify({ a, r }));
        return { lastNodeId: st.lastNodeId, nodeStates: st.nodeStates.length };
    });

    await run("update", async () => {
        await here();
        const id = createUuid();
        const o = { orderId: id, orderUpdateId: 0,
            nodes: [node("u0", 0, x, y), node("u1", 2, x, y + 0.5), node("u2", 4, x - 0.5, y + 0.5, false)],
            edges: [edge(1, "u0", "u1"), edge(3, "u1", "u2", false)] };
        const first = assign(o);
        await nextState(s => s.orderId === id && s.driving, "driving");
        const beep = { actionId: createUuid(), actionType: "beep", blockingType: "HARD", actionParameters: [{ key: "ms", value: 100 }] };
        const u = { orderId: id, orderUpdateId: 1,
            nodes: [node("u1", 2, x, y + 0.5), node("u2", 4, x - 0.5, y + 0.5, true, [beep])],
            edges: [edge(3, "u1", "u2")] };
        const r = await assign(u);
        if (r.error || r.active) throw new Error(JSON.stringify(r));
        const as = r.state.actionStates.find(a => a.actionId === beep.actionId);
        if (!as || as.actionStatus !== "FINISHED") throw new Error("the update's action: " + JSON.stringify(as));
        const p = r.state.agvPosition;
        const d = Math.hypot(p.x - (x - 0.5), p.y - (y + 0.5));
        if (r.state.lastNodeId !== "u2" || d > 0.3) throw new Error(`ended at ${r.state.lastNodeId}, ${d} m from u2`);
        void first;
        return { lastNodeId: r.state.lastNodeId, orderUpdateId: r.state.orderUpdateId, distance: d };
    });

    await run("update-pause", async () => {
        await here();
        const id = createUuid();
        const o = { orderId: id, orderUpdateId: 0,
            nodes: [node("v0", 0, x, y), node("v1", 2, x + 0.3, y)],
            edges: [edge(1, "v0", "v1")] };
        const first = assign(o);
        await nextState(s => s.orderId === id && s.driving, "driving");
        const u = { orderId: id, orderUpdateId: 1,
            nodes: [node("v1", 2, x + 0.3, y), node("v2", 4, x + 0.3, y - 1.0)],
            edges: [edge(3, "v1", "v2")] };
        const done = assign(u);
        // Pause on the update's own edge, then go on.
        await nextState(s => s.orderUpdateId === 1 && s.lastNodeId === "v1" && s.driving, "driving the update's edge");
        const a1 = await instant("startPause");
        await nextState(s => s.paused && !s.driving, "stopped while paused");
        const a2 = await instant("stopPause");
        const r = await done;
        if (a1.actionStatus !== "FINISHED" || a2.actionStatus !== "FINISHED" || r.error || r.byCancelation || r.state.lastNodeId !== "v2")
            throw new Error(JSON.stringify({ a1, a2, r }));
        void first;
        return { lastNodeId: r.state.lastNodeId };
    });

    await run("init-position", async () => {
        await here();
        // The simulated rover takes the pose: the state reports it.
        const to = { x: x + 0.4, y: y - 0.3, theta: -2.5 };
        const a = await instant("initPosition", [{ key: "x", value: to.x }, { key: "y", value: to.y },
            { key: "theta", value: to.theta }, { key: "mapId", value: mapId }, { key: "lastNodeId", value: "" }]);
        if (a.actionStatus !== "FINISHED") throw new Error(JSON.stringify(a));
        const s = await nextState(s => s.agvPosition && Math.hypot(s.agvPosition.x - to.x, s.agvPosition.y - to.y) < 0.01 &&
            Math.abs(s.agvPosition.theta - to.theta) < 0.01, "the pose set");
        const bad = await instant("initPosition", [{ key: "x", value: 0 }, { key: "y", value: 0 }, { key: "theta", value: 0 },
            { key: "mapId", value: "another-map" }]);
        if (bad.actionStatus !== "FAILED") throw new Error("another map taken: " + JSON.stringify(bad));
        return { agvPosition: s.agvPosition };
    });

    await mc.stop();
    process.exit(failed ? 1 : 0);
}

main().catch(e => { report("setup", false, { error: String(e && e.stack || e) }); process.exit(2); });
