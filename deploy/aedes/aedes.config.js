// One aedes broker of a cluster serving a botd fleet over MQTT 3.1.1
// (npm aedes-cli: `aedes --config aedes.config.js`; docs/FLEET.md). Every
// node shares one redis (Debian's redis-server): the sessions, retained
// messages and wills in its persistence, the messages between nodes on
// its pub/sub (mqemitter-redis). The cluster test
// (cmd/botd/cluster_aedes_test.go) runs this file on loopback, setting
// the environment below.
const os = require('os')

const env = (name, fallback) => process.env[name] || fallback
const redis = {
  host: env('AEDES_REDIS_HOST', '127.0.0.1'),
  port: Number(env('AEDES_REDIS_PORT', '6379'))
}

module.exports = {
  protos: ['tcp'],
  host: env('AEDES_HOST', '0.0.0.0'),
  port: Number(env('AEDES_PORT', '1883')),
  // The node's name in $SYS/<id>/heartbeat: unique per node.
  brokerId: env('AEDES_BROKER_ID', os.hostname()),
  // A node whose heartbeats stop for about three intervals is dead: a
  // survivor publishes the last wills of its clients (checked every four
  // intervals). aedes' default, 60 s, makes that minutes.
  heartbeatInterval: Number(env('AEDES_HEARTBEAT_MS', '5000')),
  // botd's client ids (botd-ROBOT-estop) exceed MQTT 3.1's 23.
  maxClientsIdLength: 128,
  connectTimeout: 10000,
  concurrency: 1000,
  queueLimit: 1000,
  // Robots log in with their own user: aedes adduser ROBOT PASSWORD
  // --credentials FILE, then point AEDES_CREDENTIALS at FILE.
  credentials: process.env.AEDES_CREDENTIALS || null,
  stats: false,
  persistence: { name: 'redis', options: redis },
  mq: { name: 'redis', options: redis },
  verbose: false,
  noPretty: true
}
