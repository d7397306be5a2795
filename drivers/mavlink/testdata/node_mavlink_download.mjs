// A ground station written with node-mavlink, an implementation of MAVLink independent of the
// one botd uses: TestUploadPlanAgainstNodeMAVLink runs it against botd's simulated multicopter
// (it is test code, not part of botd) once botd has uploaded a plan. It downloads the vehicle's
// mission, fence and rally points with the mission protocol (MISSION_REQUEST_LIST, then
// MISSION_REQUEST_INT for each item, MISSION_ACK at the end), from system 246 to the vehicle's
// UDP port (argv[2]), prints each item it decodes as one JSON line, and exits when it has all
// three. A request unanswered within 500 ms is sent again, up to 20 times.
import { createSocket } from 'dgram'
import { MavLinkPacketSplitter, MavLinkPacketParser, MavLinkProtocolV2, minimal, common } from 'node-mavlink'

const port = Number(process.argv[2])
const REGISTRY = { ...minimal.REGISTRY, ...common.REGISTRY }
const proto = new MavLinkProtocolV2(246, 190)
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')
const sock = createSocket('udp4')
let seq = 0
const send = (msg) => sock.send(proto.serialize(msg, seq++ & 255), port, '127.0.0.1')

const types = [0, 1, 2] // MAV_MISSION_TYPE_MISSION, _FENCE, _RALLY
let t = 0 // the type downloaded
let count = -1 // its item count, once the vehicle said
let next = 0 // the item asked for
let waited = 0 // timer ticks since the last request
let resends = 0 // requests sent again without progress

const ask = () => {
  if (count < 0) {
    const m = new common.MissionRequestList()
    m.targetSystem = 1
    m.targetComponent = 1
    m.missionType = types[t]
    send(m)
  } else {
    const m = new common.MissionRequestInt()
    m.targetSystem = 1
    m.targetComponent = 1
    m.seq = next
    m.missionType = types[t]
    send(m)
  }
  waited = 0
}

const advance = () => {
  resends = 0
  if (next < count) {
    ask()
    return
  }
  const a = new common.MissionAck()
  a.targetSystem = 1
  a.targetComponent = 1
  a.type = 0 // MAV_MISSION_ACCEPTED
  a.missionType = types[t]
  send(a)
  out({ got: 'DONE', type: types[t], count })
  t++
  count = -1
  next = 0
  if (t === types.length) {
    clearInterval(timer)
    sock.close()
    return
  }
  ask()
}

const splitter = new MavLinkPacketSplitter()
const reader = splitter.pipe(new MavLinkPacketParser())
sock.on('message', (buf) => splitter.write(buf))
reader.on('data', (packet) => {
  if (t >= types.length || packet.header.sysid !== 1) return
  const clazz = REGISTRY[packet.header.msgid]
  if (!clazz) return
  const d = packet.protocol.data(packet.payload, clazz)
  if (clazz === common.MissionCount && d.targetSystem === 246 && d.missionType === types[t] && count < 0) {
    count = d.count
    advance()
  } else if (clazz === common.MissionItemInt && d.targetSystem === 246 && d.missionType === types[t] && d.seq === next && count >= 0) {
    out({ got: 'ITEM', type: d.missionType, seq: d.seq, command: d.command, frame: d.frame,
      p1: d.param1, p2: d.param2, p3: d.param3, p4: d.param4, x: d.x, y: d.y, z: d.z })
    next++
    advance()
  } else if (clazz === common.MissionAck && d.targetSystem === 246) {
    out({ got: 'MISSION_ACK', type: d.missionType, result: d.type })
  }
})

const timer = setInterval(() => {
  const hb = new minimal.Heartbeat()
  hb.type = 6 // GCS
  hb.autopilot = 8 // INVALID
  hb.mavlinkVersion = 3
  send(hb)
  if (++waited > 2) {
    if (++resends > 20) {
      out({ got: 'GAVE_UP', type: types[t], count, next })
      process.exit(1)
    }
    ask()
  }
}, 250)
sock.bind(0, '127.0.0.1', () => { out({ ready: true }); ask() })
