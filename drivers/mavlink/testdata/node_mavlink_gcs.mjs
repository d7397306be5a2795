// A ground station written with node-mavlink, an implementation of MAVLink independent of the
// one botd uses: TestSimMulticopterAgainstNodeMAVLink runs it against botd's simulated
// multicopter (it is test code, not part of botd). It sends to the vehicle's UDP port
// (argv[2]) from system 245, prints one JSON line per message of interest it decodes, arms
// (again each second until the vehicle accepts), takes off to 10 m above home, asks for a
// command the vehicle does not do, and exits once it reads the vehicle 10 m up.
import { createSocket } from 'dgram'
import { MavLinkPacketSplitter, MavLinkPacketParser, MavLinkProtocolV2, minimal, common } from 'node-mavlink'

const port = Number(process.argv[2])
const REGISTRY = { ...minimal.REGISTRY, ...common.REGISTRY }
const proto = new MavLinkProtocolV2(245, 190)
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')
const sock = createSocket('udp4')
let seq = 0
const send = (msg) => sock.send(proto.serialize(msg, seq++ & 255), port, '127.0.0.1')

const command = (cmd, p1 = 0, p7 = 0) => {
  const c = new common.CommandLong()
  c.targetSystem = 1
  c.targetComponent = 1
  c.command = cmd
  c._param1 = p1
  c._param7 = p7
  send(c)
}

let heartbeats = 0
let armed = false
let homeAmsl = null
let tookOff = false

const splitter = new MavLinkPacketSplitter()
const reader = splitter.pipe(new MavLinkPacketParser())
sock.on('message', (buf) => splitter.write(buf))
reader.on('data', (packet) => {
  const clazz = REGISTRY[packet.header.msgid]
  if (!clazz) return
  const data = packet.protocol.data(packet.payload, clazz)
  const h = { magic: packet.header.magic, sysid: packet.header.sysid, compid: packet.header.compid }
  if (clazz === minimal.Heartbeat) {
    heartbeats++
    armed = (data.baseMode & 128) !== 0
    if (heartbeats <= 3 || armed) {
      out({ got: 'HEARTBEAT', ...h, type: data.type, autopilot: data.autopilot, base: data.baseMode, custom: data.customMode, armed })
    }
  } else if (clazz === common.CommandAck) {
    out({ got: 'COMMAND_ACK', ...h, command: data.command, result: data.result, target: data.targetSystem, targetComp: data.targetComponent })
    if (data.command === 400 && data.result === 0 && !tookOff && homeAmsl !== null) {
      tookOff = true
      command(22, 0, homeAmsl + 10) // NAV_TAKEOFF, altitude above sea level as PX4 takes it
      command(179, 1) // DO_SET_HOME: the simulator does not do it
    }
  } else if (clazz === common.GlobalPositionInt) {
    if (homeAmsl === null) {
      homeAmsl = (data.alt - data.relativeAlt) / 1000
      out({ got: 'GLOBAL_POSITION_INT', ...h, lat: data.lat, lon: data.lon, alt: data.alt, rel: data.relativeAlt })
    }
    if (tookOff && data.relativeAlt >= 9700) {
      out({ got: 'GLOBAL_POSITION_INT', ...h, lat: data.lat, lon: data.lon, alt: data.alt, rel: data.relativeAlt, done: true })
      clearInterval(timer)
      sock.close()
    }
  } else if (clazz === common.StatusText) {
    out({ got: 'STATUSTEXT', ...h, severity: data.severity, text: data.text })
  }
})

const timer = setInterval(() => {
  const hb = new minimal.Heartbeat()
  hb.type = 6 // GCS
  hb.autopilot = 8 // INVALID
  hb.mavlinkVersion = 3
  send(hb)
  if (!armed && homeAmsl !== null && !tookOff) command(400, 1) // arm, until accepted
}, 250)
sock.bind(0, '127.0.0.1', () => out({ ready: true }))
