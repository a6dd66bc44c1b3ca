// The trimtab dashboard page. Reads api/overview, api/job and the api/events stream of the
// server that served it; draws its charts as SVG. Every string from the cluster (names, vertex
// names, reasons) goes into the DOM as text (textContent, attribute values): never as HTML.
'use strict';

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b',
                '#e377c2', '#7f7f7f', '#bcbd22'];
const STAGES = ['collect', 'evaluate', 'decide', 'shape'];
const SVG_NS = 'http://www.w3.org/2000/svg';

let selected = null;       // {kind, namespace, name}
let selectedDecision = -1; // index into the job's decisions
let job = null;            // the latest api/job document
let refreshTimer = null;

// A DOM element with attributes and children (strings become text nodes).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

function text(v) {
  if (v === null || v === undefined || v === '') return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function fmtNumber(v) {
  if (typeof v !== 'number' || !isFinite(v)) return '';
  const a = Math.abs(v);
  if (a >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (a >= 1e4) return (v / 1e3).toFixed(0) + 'k';
  if (a >= 100) return v.toFixed(0);
  return String(Math.round(v * 100) / 100);
}

function fmtTime(ms) { return new Date(ms).toISOString().substring(11, 19); }

async function getJson(url) {
  const r = await fetch(url, {cache: 'no-store', credentials: 'same-origin'});
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function jobKey(j) { return j.kind + '/' + j.namespace + '/' + j.name; }

function cell(...children) { return el('td', {}, ...children); }

// ---- overview ----

function renderJobs(jobs) {
  const body = document.querySelector('#jobs tbody');
  clear(body);
  document.getElementById('jobs-empty').hidden = jobs.length > 0;
  for (const j of jobs) {
    const last = j.lastDecision ? text(j.lastDecision.outcome) + ' at ' + text(j.lastDecision.time) : '';
    const c = j.decisionCounts || {};
    const row = el('tr', {class: 'clickable job-row'},
      cell(j.kind), cell(j.namespace), cell(j.name), cell(j.jobState),
      cell(j.lifecycleState), cell(j.autoscalerEnabled ? 'on' : 'off'), cell(last),
      cell((c.Scaled || 0) + ' / ' + (c.Vetoed || 0) + ' / ' + (c.Blocked || 0)));
    row.dataset.key = jobKey(j);
    if (selected && jobKey(selected) === jobKey(j)) row.classList.add('selected');
    row.addEventListener('click', () => selectJob(j));
    body.appendChild(row);
  }
}

function renderRows(id, items, columns) {
  const body = document.querySelector('#' + id + ' tbody');
  clear(body);
  for (const item of items) body.appendChild(el('tr', {}, ...columns.map(f => cell(text(f(item))))));
}

function renderScheduling(o) {
  renderRows('queues', o.queues, [q => q.name, q => q.state, q => q.weight, q => q.capability,
                                  q => q.allocated, q => text(q.running) + ' / ' + text(q.pending)]);
  renderRows('podgroups', o.podGroups, [p => p.namespace, p => p.name, p => p.queue, p => p.phase,
                                        p => p.minMember, p => text(p.running) + ' / ' + text(p.pending)]);
  renderRows('hpas', o.hpas, [h => h.namespace, h => h.name, h => h.target,
                              h => text(h.currentReplicas) + ' / ' + text(h.desiredReplicas),
                              h => text(h.minReplicas) + ' / ' + text(h.maxReplicas),
                              h => h.conditions.map(c => c.type + '=' + c.status +
                                                         (c.reason ? ' (' + c.reason + ')' : '')).join(', ')]);
  const unreadable = Object.entries(o.readable || {}).filter(([, ok]) => !ok).map(([k]) => k);
  document.getElementById('unreadable').textContent = unreadable.length ?
      'Not readable here (not served by this API server, not allowed, or not synced yet): ' +
      unreadable.join(', ') : '';
}

// ---- charts ----

// series: [{label, color, dashed, points: [[ms, value]]}]; markers: [{ms, decision, index}]
function chart(title, series, markers, step) {
  const W = 820, H = 190, L = 56, R = 12, T = 12, B = 24;
  const box = el('div', {class: 'chart'}, el('h4', {}, title));
  const all = series.flatMap(s => s.points);
  const times = all.map(p => p[0]).concat(markers.map(m => m.ms));
  const s = svg('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img'});
  s.appendChild(svg('rect', {x: L, y: T, width: W - L - R, height: H - T - B, fill: '#fbfcfd', stroke: '#d5d9df'}));
  box.appendChild(s);
  if (all.length === 0) {
    box.appendChild(el('p', {class: 'empty'}, 'No data yet.'));
    return box;
  }
  let t0 = Math.min(...times), t1 = Math.max(...times);
  if (t1 === t0) { t0 -= 30000; t1 += 30000; }
  let vmax = Math.max(...all.map(p => p[1]), 0);
  vmax = vmax <= 0 ? 1 : vmax * 1.1;
  const x = t => L + (t - t0) / (t1 - t0) * (W - L - R);
  const y = v => T + (1 - v / vmax) * (H - T - B);
  for (const frac of [0, 0.5, 1]) {
    const v = vmax * frac;
    s.appendChild(svg('line', {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: '#e6e9ed'}));
    const label = svg('text', {x: L - 4, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 10, fill: '#555'});
    label.textContent = fmtNumber(v);
    s.appendChild(label);
  }
  for (const [t, anchor] of [[t0, 'start'], [t1, 'end']]) {
    const label = svg('text', {x: x(t), y: H - 6, 'text-anchor': anchor, 'font-size': 10, fill: '#555'});
    label.textContent = fmtTime(t);
    s.appendChild(label);
  }
  for (const se of series) {
    if (se.points.length === 0) continue;
    let pts = [];
    se.points.forEach((p, i) => {
      if (step && i > 0) pts.push(x(p[0]).toFixed(1) + ',' + y(se.points[i - 1][1]).toFixed(1));
      pts.push(x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1));
    });
    const line = svg('polyline', {points: pts.join(' '), fill: 'none', stroke: se.color,
                                  'stroke-width': 1.8, class: 'series'});
    if (se.dashed) line.setAttribute('stroke-dasharray', '5 3');
    line.dataset.points = String(se.points.length);
    const tip = svg('title', {});
    tip.textContent = se.label;
    line.appendChild(tip);
    s.appendChild(line);
  }
  for (const m of markers) {
    const color = m.decision === 'Scaled' ? '#2e7d32' : m.decision === 'Vetoed' ? '#c62828' : '#ef6c00';
    const g = svg('g', {class: 'marker', tabindex: 0, role: 'button'});
    g.dataset.index = String(m.index);
    g.appendChild(svg('line', {x1: x(m.ms), x2: x(m.ms), y1: T, y2: H - B, stroke: color,
                               'stroke-dasharray': '2 2'}));
    g.appendChild(svg('circle', {cx: x(m.ms), cy: T + 6, r: 5, fill: color}));
    const tip = svg('title', {});
    tip.textContent = m.decision + ' at ' + fmtTime(m.ms) + ' (click for the decision log)';
    g.appendChild(tip);
    g.addEventListener('click', () => showDecision(m.index));
    g.addEventListener('keydown', e => { if (e.key === 'Enter') showDecision(m.index); });
    s.appendChild(g);
  }
  const legend = el('div', {class: 'legend'});
  for (const se of series) {
    const sw = el('span', {class: 'swatch'});
    sw.style.background = se.color;
    legend.appendChild(el('span', {}, sw, se.label));
  }
  box.appendChild(legend);
  return box;
}

function vertexName(id) {
  return job && job.vertexNames && typeof job.vertexNames[id] === 'string' ? job.vertexNames[id] : id;
}

function renderCharts() {
  const charts = document.getElementById('charts');
  clear(charts);
  const ids = Object.keys(job.vertexNames || {});
  const pts = (job.points || []).filter(p => p && typeof p.time === 'string' && p.vertices);
  const series = (field, label, dashed) => ids.map((id, i) => ({
    label: vertexName(id) + label, color: COLORS[i % COLORS.length], dashed,
    points: pts.filter(p => p.vertices[id] && typeof p.vertices[id][field] === 'number')
               .map(p => [Date.parse(p.time), p.vertices[id][field]])}));
  const markers = (job.decisions || []).map((d, index) => ({ms: Date.parse(d.time), decision: d.decision, index}))
                                        .filter(m => isFinite(m.ms));
  const rate = series('inputRate', ': input rate', false).concat(series('capacity', ': processing capacity', true));
  charts.appendChild(chart('Input rate (solid) and processing capacity (dashed), records/s',
                           rate.filter(s => s.points.length), markers, false));
  charts.appendChild(chart('Lag (records pending at the sources)',
                           series('lag', ': lag', false).filter(s => s.points.length), markers, false));
  charts.appendChild(chart('Parallelism per vertex', series('parallelism', '', false), markers, true));
}

// ---- decisions ----

function changes(d) {
  const out = [];
  for (const [id, v] of Object.entries(d.vertices || {})) {
    if (v && v.finalParallelism !== v.currentParallelism) {
      out.push(vertexName(id) + ': ' + text(v.currentParallelism) + ' -> ' + text(v.finalParallelism));
    } else if (v && v.proposedParallelism !== undefined && v.proposedParallelism !== v.currentParallelism) {
      out.push(vertexName(id) + ': ' + text(v.currentParallelism) + ' -> ' + text(v.proposedParallelism) + ' wanted');
    }
  }
  return out.join('; ');
}

function why(d) {
  if (d.chain && d.chain.vetoed) return 'vetoed by ' + text(d.chain.vetoedBy) + ': ' + text(d.chain.reason);
  if (d.skippedReason) return text(d.skippedReason);
  const shape = (d.stages && d.stages.shape) || [];
  return shape.length ? text(shape[shape.length - 1]) : '';
}

function renderDecisions() {
  const body = document.querySelector('#decisions tbody');
  clear(body);
  const decisions = job.decisions || [];
  document.getElementById('decisions-empty').hidden = decisions.length > 0;
  decisions.forEach((d, index) => {
    const row = el('tr', {class: 'clickable decision-row'}, cell(text(d.time)),
                   cell(el('span', {class: text(d.decision)}, text(d.decision))), cell(changes(d)), cell(why(d)));
    if (index === selectedDecision) row.classList.add('selected');
    row.addEventListener('click', () => showDecision(index));
    body.insertBefore(row, body.firstChild);  // newest first
  });
}

function list(items) { return el('ul', {}, ...items.map(i => el('li', {}, text(i)))); }

function showDecision(index) {
  selectedDecision = index;
  const d = (job.decisions || [])[index];
  const panel = document.getElementById('log');
  const body = document.getElementById('log-body');
  clear(body);
  if (!d) { panel.hidden = true; return; }
  panel.hidden = false;
  document.getElementById('log-title').textContent =
      'Decision log: ' + text(d.decision) + ' at ' + text(d.time) + ' (outcome ' + text(d.outcome) + ')';
  if (d.skippedReason) body.appendChild(el('p', {}, 'Skipped: ' + text(d.skippedReason)));
  body.appendChild(el('h4', {}, 'Stages'));
  for (const stage of STAGES) {
    const notes = (d.stages && d.stages[stage]) || [];
    body.appendChild(el('div', {class: 'stage'}, el('b', {}, stage), notes.length ? list(notes) : el('span', {class: 'empty'}, 'nothing noted')));
  }
  body.appendChild(el('h4', {}, 'Vertices'));
  const vt = el('table', {class: 'log-vertices'}, el('tr', {}, el('th', {}, 'vertex'), el('th', {}, 'current'),
      el('th', {}, 'proposed'), el('th', {}, 'final'), el('th', {}, 'reasons')));
  for (const [id, v] of Object.entries(d.vertices || {})) {
    vt.appendChild(el('tr', {}, cell(vertexName(id)), cell(text(v.currentParallelism)),
                      cell(text(v.proposedParallelism)), cell(text(v.finalParallelism)), cell(list(v.reasons || []))));
  }
  body.appendChild(vt);
  body.appendChild(el('h4', {}, 'Executor plugins'));
  const chain = d.chain;
  if (!chain || !(chain.steps || []).length) {
    body.appendChild(el('p', {class: 'empty'}, chain ? 'The chain has no plugins.' : 'The chain did not run.'));
  } else {
    if (chain.vetoed) body.appendChild(el('p', {class: 'Vetoed'}, 'Vetoed by ' + text(chain.vetoedBy) + ': ' + text(chain.reason)));
    const ct = el('table', {class: 'log-chain'}, el('tr', {}, el('th', {}, 'plugin'), el('th', {}, 'priority'),
        el('th', {}, 'verdict'), el('th', {}, 'reason')));
    for (const st of chain.steps) {
      ct.appendChild(el('tr', {}, cell(text(st.plugin)), cell(text(st.priority)),
                        cell(text(st.verdict) + (st.failed ? ' (failed)' : '')), cell(text(st.reason))));
    }
    body.appendChild(ct);
  }
  if ((d.events || []).length) {
    body.appendChild(el('h4', {}, 'Events'));
    body.appendChild(list(d.events.map(e => text(e.type) + ' ' + text(e.reason) + ': ' + text(e.message))));
  }
  renderDecisions();
}

// ---- job detail ----

function renderJob() {
  const section = document.getElementById('job');
  section.hidden = false;
  document.getElementById('job-title').textContent = job.kind + ' ' + job.namespace + '/' + job.name;
  let summary = 'job ' + (job.jobState || '-') + ', lifecycle ' + (job.lifecycleState || '-') +
      ', autoscaler ' + (job.autoscalerEnabled ? 'on' : 'off');
  if (job.stateConfigMap) summary += ', state in ConfigMap ' + job.stateConfigMap;
  if (job.error) summary += '. Error: ' + text(job.error);
  document.getElementById('job-summary').textContent = summary;
  renderCharts();
  renderDecisions();
  if (selectedDecision >= 0) showDecision(selectedDecision);
}

async function loadJob() {
  if (!selected) return;
  const q = new URLSearchParams({kind: selected.kind, namespace: selected.namespace, name: selected.name});
  try {
    job = await getJson('api/job?' + q.toString());
    renderJob();
  } catch (e) {
    document.getElementById('job-summary').textContent = 'Cannot read the job: ' + e.message;
  }
}

function selectJob(j) {
  selected = {kind: j.kind, namespace: j.namespace, name: j.name};
  selectedDecision = -1;
  document.getElementById('log').hidden = true;
  location.hash = [j.kind, j.namespace, j.name].map(encodeURIComponent).join('/');
  for (const row of document.querySelectorAll('#jobs tbody tr')) {
    row.classList.toggle('selected', row.dataset.key === jobKey(j));
  }
  loadJob();
}

// ---- refresh and live updates ----

async function refresh() {
  try {
    const o = await getJson('api/overview');
    document.getElementById('generated').textContent = 'as of ' + o.generatedAt;
    renderJobs(o.jobs);
    renderScheduling(o);
    if (selected) await loadJob();
  } catch (e) {
    document.getElementById('generated').textContent = 'cannot read the dashboard: ' + e.message;
  }
}

function scheduleRefresh() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, 300);
}

function connect() {
  const live = document.getElementById('live');
  const events = new EventSource('api/events');
  events.addEventListener('change', scheduleRefresh);
  events.onopen = () => { live.textContent = 'live'; live.classList.remove('off'); };
  events.onerror = () => { live.textContent = 'reconnecting'; live.classList.add('off'); };
}

function start() {
  const parts = location.hash.replace(/^#/, '').split('/').map(decodeURIComponent);
  if (parts.length === 3 && parts[0]) selected = {kind: parts[0], namespace: parts[1], name: parts[2]};
  refresh();
  connect();
  setInterval(refresh, 30000);  // in case the event stream is cut by a proxy
}

document.addEventListener('DOMContentLoaded', start);
