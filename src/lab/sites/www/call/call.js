// The lab's WebRTC call: join a room through the origin's /signal WebSocket; when the other
// side is there, the caller offers and the peer answers. Host candidates only (no STUN or
// TURN), optionally limited to one address prefix so media stays on the lab's network.
import { createStatus, loadConfig, showStatus } from '/common/config.js';

const status = createStatus('call', { signaling: 'connecting', connection: 'new', bytesSent: 0, bytesReceived: 0, framesDecoded: 0, framesEncoded: 0 });
showStatus(document.getElementById('status'), status);
const cfg = await loadConfig();
const q = cfg.query;
const role = q.get('role') === 'peer' ? 'peer' : 'caller';
const room = q.get('room') || 'lab';
const signalUrl = cfg.get('signalUrl', 'signal');
const icePrefix = cfg.get('iceAddressPrefix', 'ice') || '';
Object.assign(status, { role, room, signalUrl, icePrefix });

// The caller synthesises its media (no camera permission needed in the measured browser);
// the lab peer uses Chromium's fake capture devices.
async function localMedia() {
  if (role === 'peer' || q.get('media') === 'camera') {
    return navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 480 }, audio: true });
  }
  const canvas = document.createElement('canvas');
  canvas.width = 640;
  canvas.height = 480;
  const g = canvas.getContext('2d');
  let frame = 0;
  setInterval(() => {
    frame++;
    g.fillStyle = `hsl(${frame % 360} 70% 40%)`;
    g.fillRect(0, 0, 640, 480);
    g.fillStyle = '#fff';
    g.fillRect((frame * 7) % 600, 200, 40, 40);
    g.font = '32px sans-serif';
    g.fillText(`caller ${new Date().toISOString().slice(11, 23)}`, 20, 60);
  }, 1000 / 30);
  const stream = canvas.captureStream(30);
  const ac = new AudioContext();
  const osc = ac.createOscillator();
  osc.frequency.value = 330;
  const dest = ac.createMediaStreamDestination();
  osc.connect(dest);
  osc.start();
  for (const t of dest.stream.getAudioTracks()) stream.addTrack(t);
  return stream;
}

const local = await localMedia();
document.getElementById('local').srcObject = local;

// Filtering both what we announce and what we accept keeps every candidate pair inside the
// prefix even if the other side does not filter.
const allowed = (c) => !icePrefix || (c.address || '').startsWith(icePrefix);

let pc = null;
let ws = null;
const send = (msg) => ws.send(JSON.stringify(msg));

function newPeerConnection() {
  if (pc) pc.close();
  pc = new RTCPeerConnection({ iceServers: [] });
  for (const t of local.getTracks()) pc.addTrack(t, local);
  pc.onicecandidate = (e) => {
    if (!e.candidate || !allowed(e.candidate)) return;
    send({ type: 'candidate', candidate: e.candidate.toJSON() });
  };
  pc.ontrack = (e) => {
    document.getElementById('remote').srcObject = e.streams[0];
  };
  pc.onconnectionstatechange = () => (status.connection = pc.connectionState);
}

// Messages are handled strictly in order: a candidate must not overtake its description.
let chain = Promise.resolve();
async function handle(msg) {
  if (msg.type === 'peer') {
    status.peer = 'present';
    newPeerConnection();
    if (role === 'caller') {
      await pc.setLocalDescription(await pc.createOffer());
      send({ type: 'offer', sdp: pc.localDescription.toJSON() });
    }
  } else if (msg.type === 'offer') {
    if (!pc) newPeerConnection();
    await pc.setRemoteDescription(msg.sdp);
    await pc.setLocalDescription(await pc.createAnswer());
    send({ type: 'answer', sdp: pc.localDescription.toJSON() });
  } else if (msg.type === 'answer') {
    await pc.setRemoteDescription(msg.sdp);
  } else if (msg.type === 'candidate') {
    const c = new RTCIceCandidate(msg.candidate);
    if (allowed(c)) await pc.addIceCandidate(c);
  } else if (msg.type === 'peer-left') {
    status.peer = 'left';
    if (pc) pc.close();
    pc = null;
  }
}

ws = new WebSocket(`${signalUrl}${signalUrl.includes('?') ? '&' : '?'}room=${encodeURIComponent(room)}`);
ws.onopen = () => (status.signaling = 'open');
ws.onclose = (e) => (status.signaling = `closed ${e.code} ${e.reason}`);
ws.onerror = () => status.errors.push('signalling WebSocket error');
ws.onmessage = (e) => {
  const msg = JSON.parse(e.data);
  chain = chain.then(() => handle(msg)).catch((err) => status.errors.push(`${msg.type}: ${err.message}`));
};

// Media counters from getStats: what the tests (and the lab session) check.
setInterval(async () => {
  if (!pc) return;
  const stats = await pc.getStats();
  let sent = 0;
  let received = 0;
  let decoded = 0;
  let encoded = 0;
  let pair = null;
  stats.forEach((s) => {
    if (s.type === 'outbound-rtp') {
      sent += s.bytesSent || 0;
      encoded += s.framesEncoded || 0;
    } else if (s.type === 'inbound-rtp') {
      received += s.bytesReceived || 0;
      decoded += s.framesDecoded || 0;
    } else if (s.type === 'transport' && s.selectedCandidatePairId) {
      pair = stats.get(s.selectedCandidatePairId);
    }
  });
  Object.assign(status, { bytesSent: sent, bytesReceived: received, framesDecoded: decoded, framesEncoded: encoded });
  if (pair) {
    const l = stats.get(pair.localCandidateId);
    const r = stats.get(pair.remoteCandidateId);
    if (l && r) status.path = `${l.address}:${l.port} ${l.protocol} -> ${r.address}:${r.port}`;
  }
  status.state = pc.connectionState === 'connected' ? 'connected' : pc.connectionState;
}, 1000);
