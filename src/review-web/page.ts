import { escapeHtml, REVIEW_CSS } from '../documents/output/review-html';

/**
 * The review workspace's one page (decision 101): plain HTML, CSS and a script of its own, no
 * framework and nothing fetched from elsewhere, so it works offline and behind the page's strict
 * content security policy. The merged document comes from the server already escaped
 * (`mergeReviewHtml`, the same fragment as the `.html` output); everything else from the run is put
 * in as text, never as markup.
 */
const PAGE_CSS = `
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: #1d2330; background: #fff; }
header { position: sticky; top: 0; z-index: 1; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; padding: 8px 16px; background: #f4f6fa; border-bottom: 1px solid #d8dce6; }
header #status { color: #5b6475; }
main { max-width: 1200px; margin: 0 auto; padding: 12px 16px 40px; }
button { font: inherit; padding: 4px 12px; border: 1px solid #9aa3b5; border-radius: 4px; background: #fff; cursor: pointer; }
button:disabled { opacity: 0.5; cursor: default; }
#decide { border: 1px solid #c9d2e8; border-radius: 6px; padding: 8px 16px 14px; margin: 0 0 18px; background: #fafbff; }
#decide fieldset { border: none; border-top: 1px solid #e2e6f0; margin: 0; padding: 8px 0; }
#decide legend { font-weight: 600; padding: 0; }
#decide label { display: block; margin: 2px 0; }
#decide input.other { margin-left: 6px; width: 22rem; max-width: 60%; }
#message, #sent { color: #5b6475; }
#sent.refused, #message.refused { color: #b3261e; }
#review .empty { color: #5b6475; }
#redo { border-top: 1px solid #d8dce6; margin-top: 18px; }
#redo .part { border: 1px solid #e2e6f0; border-radius: 6px; padding: 6px 10px; margin: 8px 0; }
#redo .part p { margin: 4px 0; white-space: pre-wrap; }
#redo textarea { width: 100%; min-height: 3em; font: inherit; }
#fork { color: #5b6475; }
`;

const SCRIPT = `
const token = new URLSearchParams(location.search).get('token') || '';
const $ = (id) => document.getElementById(id);
let shownReview = null;
let shownPending = null;
let closed = false;
let shownParts = null;

async function api(path, body) {
  const init = body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const response = await fetch(path + '?token=' + encodeURIComponent(token), init);
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function statusText(s) {
  const p = s.progress;
  const parts = [s.status.toLowerCase()];
  if (p) parts.push(p.operationsDone + ' of ' + p.operationsTotal + ' operations', p.llmCalls + ' LLM calls', '$' + p.costUsd.toFixed(4));
  if (p && p.paused) parts.push('paused: no new LLM call starts');
  if (s.pending) parts.push('waiting for your decisions');
  return parts.join(' · ');
}

function option(fieldset, name, value, label, checked) {
  const row = document.createElement('label');
  const input = document.createElement('input');
  input.type = 'radio';
  input.name = name;
  input.value = value;
  input.checked = checked;
  row.append(input, ' ' + label);
  fieldset.append(row);
  return input;
}

function buildForm(pending) {
  const form = $('decisions');
  form.replaceChildren();
  $('decide').hidden = !pending;
  if (!pending) return;
  for (const d of pending.disagreements) {
    const fieldset = document.createElement('fieldset');
    fieldset.dataset.id = d.id;
    const legend = document.createElement('legend');
    legend.textContent = d.topic;
    fieldset.append(legend);
    const kept = d.kept.map((k) => k.text).join('; ') || 'nothing (the merge dropped it)';
    option(fieldset, d.id, 'keep', "keep the merge's: " + kept, true);
    for (const v of d.values) option(fieldset, d.id, 'doc:' + v.document, (pending.documents[v.document] || 'document ' + (v.document + 1)) + ': ' + v.value.text, false);
    const other = option(fieldset, d.id, 'text', 'other:', false);
    const text = document.createElement('input');
    text.type = 'text';
    text.className = 'other';
    text.setAttribute('aria-label', 'another value for ' + d.topic);
    text.addEventListener('input', () => { other.checked = true; });
    other.parentElement.append(text);
    form.append(fieldset);
  }
  $('send').disabled = false;
  $('sent').textContent = '';
}

function render(s) {
  $('status').textContent = statusText(s);
  const running = s.status === 'RUNNING';
  const paused = Boolean(s.progress && s.progress.paused);
  $('pause').hidden = !running || paused || Boolean(s.pending);
  $('resume').hidden = !running || !paused;
  if (s.reviewHtml && s.reviewHtml !== shownReview) {
    $('review').innerHTML = s.reviewHtml;
    shownReview = s.reviewHtml;
  }
  const key = s.pending ? s.pending.thought : null;
  if (key !== shownPending) {
    shownPending = key;
    buildForm(s.pending);
  }
  $('steering').textContent = s.steering.length ? 'Steered: ' + s.steering.join('; ') : '';
  $('run').textContent = s.workflowId;
  // The graph page of the run shown now (a redo's fork once there is one), behind the same token.
  $('graph').href = '/graph?token=' + encodeURIComponent(token);
  $('fork').textContent = s.fork
    ? 'Fork of ' + s.fork.parent + ' (' + s.fork.instructions.join('; ') + '): ' + s.fork.callsMade + ' LLM call(s) made, ' + s.fork.callsInherited + ' taken from it without a call.'
    : '';
  const partsKey = s.parts ? s.workflowId : null;
  if (partsKey !== shownParts) {
    shownParts = partsKey;
    buildParts(s.parts);
  }
  closed = !running;
}

function buildParts(parts) {
  const list = $('parts');
  list.replaceChildren();
  $('redo').hidden = !parts || parts.length === 0;
  for (const p of parts || []) {
    const row = document.createElement('div');
    row.className = 'part';
    row.dataset.part = p.part;
    const title = document.createElement('b');
    title.textContent = p.part + ' · ' + p.calls + ' LLM call(s)';
    const text = document.createElement('p');
    text.textContent = p.text;
    const words = document.createElement('textarea');
    words.setAttribute('aria-label', 'instructions for ' + p.part);
    words.placeholder = 'What should this part say differently?';
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Redo with these instructions';
    button.addEventListener('click', async () => {
      const instructions = words.value.trim();
      if (!instructions) return say('message', 'Write the instructions for ' + p.part + ' first.', true);
      button.disabled = true;
      try {
        const fork = await api('/api/redo', { part: p.part, instructions });
        say('message', 'Redoing ' + p.part + ' in ' + fork.workflowId + ': only its calls are made again.', false);
        closed = false;
        tick(true);
      } catch (error) {
        button.disabled = false;
        say('message', 'Refused: ' + error.message, true);
      }
    });
    row.append(title, text, words, button);
    list.append(row);
  }
}

function say(id, text, refused) {
  $(id).textContent = text;
  $(id).className = refused ? 'refused' : '';
}

$('send').addEventListener('click', async () => {
  const decisions = [];
  for (const fieldset of $('decisions').querySelectorAll('fieldset')) {
    const picked = fieldset.querySelector('input[type=radio]:checked');
    if (!picked || picked.value === 'keep') continue;
    if (picked.value === 'text') {
      const text = fieldset.querySelector('input.other').value.trim();
      if (!text) return say('sent', 'Write the other value for "' + fieldset.querySelector('legend').textContent + '", or choose another row.', true);
      decisions.push({ id: fieldset.dataset.id, choose: { text } });
    } else decisions.push({ id: fieldset.dataset.id, choose: { document: Number(picked.value.slice(4)) } });
  }
  $('send').disabled = true;
  try {
    const sent = await api('/api/decide', { decisions, by: 'web review' });
    say('sent', 'Sent ' + sent.accepted + ' decision(s); the run finishes the merge with them.', false);
  } catch (error) {
    $('send').disabled = false;
    say('sent', 'Refused: ' + error.message, true);
  }
});

for (const action of ['pause', 'resume'])
  $(action).addEventListener('click', async () => {
    try {
      await api('/api/steer', { action, by: 'web review' });
      say('message', action === 'pause' ? 'Paused: calls in flight finish, no new call starts.' : 'Resumed.', false);
    } catch (error) {
      say('message', 'Refused: ' + error.message, true);
    }
    tick(false);
  });

async function tick(again) {
  try {
    render(await api('/api/state'));
  } catch (error) {
    say('message', 'Cannot read the run: ' + error.message, true);
  }
  if (again && !closed) setTimeout(() => tick(true), 1000);
}
tick(true);
`;

export function workspacePage(workflowId: string, nonce: string): string {
  const id = escapeHtml(workflowId);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Review · ${id}</title>
<style>${PAGE_CSS}${REVIEW_CSS}</style>
</head>
<body>
<header>
<b>Review</b><span id="run">${id}</span><span id="status">reading the run…</span>
<button id="pause" type="button" hidden>Pause LLM calls</button><button id="resume" type="button" hidden>Resume LLM calls</button>
<a id="graph" target="_blank" rel="noopener">graph and thoughts</a>
<span id="message"></span>
</header>
<main>
<section id="decide" hidden>
<h2>Decide where the sources disagree</h2>
<p>Each row keeps what the merge states unless you choose a source's value or write another. The run writes your choices into the merge and finishes.</p>
<form id="decisions"></form>
<button id="send" type="button">Send decisions</button> <span id="sent"></span>
</section>
<section id="review"><p class="empty">The merged document appears here, each clause beside its sources, once the run has reviewed it.</p></section>
<p id="steering"></p>
<p id="fork"></p>
<section id="redo" hidden>
<h2>Redo a part with instructions</h2>
<p>A redo is a new run from this one: every other part is taken from it without a call, and your decisions apply again.</p>
<div id="parts"></div>
</section>
</main>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>
</body>
</html>
`;
}
