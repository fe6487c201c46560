// The Python worker both plugins share: one per host process (JSON lines over stdin/stdout),
// restarted when it dies, a bounded queue, a timeout per call, stopped with the host. A fake
// core (a script speaking the worker protocol) counts how often it was started.

import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { once } from 'node:events'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { Context } from '@deepseek-ai/cordis'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import * as memory from '../cuecard-dsh-memory/lib/index.js'
import * as discipline from '../cuecard-dsh-discipline/lib/index.js'
import { HOOK_ENV, MAX_PENDING, acquireWorker } from '../cuecard-dsh-memory/lib/runner.js'
import { JS_ROOT, fakeCore, fakeRequests, signal, tempHome } from './_helpers.mjs'

const home = tempHome()
after(() => home.dispose())

async function bootBoth(config = {}) {
  const root = new Context()
  await root.plugin(SystemPrompt, {})
  await root.plugin(ToolRuntime, {})
  await root.plugin(memory, config)
  await root.plugin(discipline, { mode: 'always', ...config })
  return root
}

const search = (root, query = 'port') =>
  root.tools.execute({ callId: `c-${query}`, name: 'memory_search', arguments: { query }, signal: signal() })

function turn(root, text) {
  const message = createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } })
  const agent = { id: 's', session: { header: { id: 's', cwd: home.dir } } }
  return root.waterfall('agent/pre-step', { agent, messages: [message], turn: 1, step: 1, signal: signal() },
    () => Promise.resolve({ kind: 'enter', messages: [message] }))
}

/** Wait for `child` to close (the worker is unref'd: hold the event loop open meanwhile). */
async function closing(child) {
  const keep = setInterval(() => {}, 1000)
  try {
    return await once(child, 'close')
  } finally {
    clearInterval(keep)
  }
}

/** The running worker of this home (held for a moment to look at it). */
function currentWorker() {
  const held = acquireWorker({ python: 'default', env: process.env })
  held.release()
  return held.worker
}

test('both plugins share one worker: calls and turns start no process', async (t) => {
  const { log } = fakeCore(home, { output: JSON.stringify({ ok: true, output: 'found' }) })
  const root = await bootBoth()
  t.after(() => root.fiber.dispose())
  for (const query of ['a', 'b', 'c']) assert.equal((await search(root, query)).isError, false)
  for (const text of ['first turn', 'second turn']) {
    const decision = await turn(root, text)
    assert.equal(decision.messages.length, 2)
  }
  const { starts, requests } = fakeRequests(log)
  assert.equal(starts.length, 1, starts.join('\n'))
  assert.deepEqual(requests.map((r) => r.op), ['call', 'call', 'call', 'recall', 'recall'])
})

test('a worker that dies is started again at the next call', async (t) => {
  const { log } = fakeCore(home, { output: JSON.stringify({ ok: true, output: 'found' }) })
  const root = await bootBoth()
  t.after(() => root.fiber.dispose())
  assert.equal((await search(root)).isError, false)
  const child = currentWorker().child
  const closed = closing(child)
  process.kill(child.pid, 'SIGKILL')
  await closed
  const again = await search(root)
  assert.equal(again.isError, false, again.error?.message)
  assert.match(again.value.output, /found/)
  assert.equal(fakeRequests(log).starts.length, 2)
})

test('the queue is bounded: calls beyond it are refused at once, the rest are answered', async (t) => {
  fakeCore(home, { output: JSON.stringify({ ok: true, output: 'found' }), sleep: 0.05 })
  const root = await bootBoth()
  t.after(() => root.fiber.dispose())
  const results = await Promise.all(Array.from({ length: MAX_PENDING + 4 }, (_, i) => search(root, `q${i}`)))
  const busy = results.filter((r) => r.isError && /busy/.test(r.error.message))
  assert.ok(busy.length >= 4, `${busy.length} refused`)
  assert.ok(results.filter((r) => !r.isError).length >= MAX_PENDING - 2)
})

test('a call that hangs times out, and the next call gets a fresh worker', async (t) => {
  fakeCore(home, { output: JSON.stringify({ ok: true, output: 'found' }), sleep: 30 })
  const root = await bootBoth({ timeoutMs: 1000 })
  t.after(() => root.fiber.dispose())
  const stuck = await search(root)
  assert.equal(stuck.isError, true)
  assert.match(stuck.error.message, /did not answer within 1000 ms/)
  const { log } = fakeCore(home, { output: JSON.stringify({ ok: true, output: 'found' }) }) // log reset
  assert.equal((await search(root)).isError, false)
  assert.equal(fakeRequests(log).starts.length, 1, 'the stuck worker was replaced')
})

test('unloading the plugins stops the worker', async () => {
  fakeCore(home, { output: JSON.stringify({ ok: true, output: 'found' }) })
  const root = await bootBoth()
  await search(root)
  const child = currentWorker().child
  const closed = closing(child)
  await root.fiber.dispose()
  const [code] = await closed
  assert.equal(code, 0, 'it ended at the end of its input')
})

test('a host process that ends takes its worker with it, and an idle worker never holds it up', () => {
  fakeCore(home, { output: JSON.stringify({ ok: true, output: 'found' }) })
  const script = `
    import { Context } from '@deepseek-ai/cordis'
    import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
    import ToolRuntime from '@deepseek-ai/dsh-tools'
    import * as memory from './cuecard-dsh-memory/lib/index.js'
    import { acquireWorker } from './cuecard-dsh-memory/lib/runner.js'
    const root = new Context()
    await root.plugin(SystemPrompt, {}); await root.plugin(ToolRuntime, {}); await root.plugin(memory, {})
    const r = await root.tools.execute({ callId: 'c', name: 'memory_search', arguments: { query: 'x' }, signal: new AbortController().signal })
    const held = acquireWorker({ python: 'default', env: process.env }); held.release()
    console.log(JSON.stringify({ ok: !r.isError, pid: held.worker.child.pid }))
  `
  // No dispose, no exit call: the process must end on its own once its work is done.
  const done = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: JS_ROOT, env: process.env, encoding: 'utf8', timeout: 60000,
  })
  assert.equal(done.signal, null, 'the host process ended by itself')
  assert.equal(done.status, 0, done.stderr)
  const { ok, pid } = JSON.parse(done.stdout)
  assert.equal(ok, true)
  let alive = true
  for (let i = 0; i < 400 && alive; i++) { // liveness bound, not a timing assertion
    try { process.kill(pid, 0); spawnSync('sleep', ['0.025']) } catch { alive = false }
  }
  assert.equal(alive, false, `worker ${pid} outlived its host`)
})

/** Send one hook request over loopback; resolves what came back before the close. */
function hookRequest(port, text) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks = []
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', () => {})
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.write(text)
  })
}

test('hook events reach the running worker over loopback, only with the secret', async (t) => {
  const { log } = fakeCore(home, { output: '{"hookSpecificOutput": {"additionalContext": "m"}}\n' })
  const hooks = join(home.config, 'cuecard', 'dsh-hooks.json')
  writeFileSync(hooks, '{"hooks": {}}\n')
  t.after(() => rmSync(hooks, { force: true }))
  const root = await bootBoth()
  let disposed = false
  t.after(() => disposed || root.fiber.dispose())
  const keep = setInterval(() => {}, 1000)
  t.after(() => clearInterval(keep))
  while (!process.env[HOOK_ENV]) await new Promise((r) => setTimeout(r, 10))
  const file = process.env[HOOK_ENV]
  assert.equal(dirname(file), join(home.config, 'cuecard', 'dsh-run'))
  assert.equal(statSync(file).mode & 0o777, 0o600)
  assert.equal(statSync(dirname(file)).mode & 0o777, 0o700)
  const [port, secret] = readFileSync(file, 'utf8').trim().split(' ')
  assert.match(secret, /^[0-9a-f]{48}$/)
  assert.equal(await hookRequest(Number(port), 'guess PostToolUse\n{"a":1}\n'), '')
  assert.equal(await hookRequest(Number(port), `${secret} Post;ToolUse\n{"a":1}\n`), '')
  const payload = '{"tool_name":"read","cwd":"/x"}'
  const answer = await hookRequest(Number(port), `${secret} PostToolUse\n${payload}\n`)
  assert.equal(answer, '{"hookSpecificOutput": {"additionalContext": "m"}}\n')
  const { starts, requests } = fakeRequests(log)
  assert.equal(starts.length, 1)  // the plugins' worker, nothing started for the event
  assert.deepEqual(requests, [{ id: requests[0].id, op: 'hook', event: 'PostToolUse', payload }])
  await root.fiber.dispose()
  disposed = true
  assert.equal(process.env[HOOK_ENV], undefined)
  assert.throws(() => statSync(file))  // the address goes with the plugins
})

test('a worker killed in the middle of a call says so, not that cuecard is missing', async (t) => {
  fakeCore(home, { output: JSON.stringify({ ok: true, output: 'found' }), sleep: 5 })
  const root = await bootBoth()
  t.after(() => root.fiber.dispose())
  const pending = search(root, 'slow')
  let child
  while (!(child = currentWorker().child)?.answered) await new Promise((r) => setTimeout(r, 10)) // hello answered
  process.kill(child.pid, 'SIGKILL')
  const result = await pending
  assert.equal(result.isError, true)
  assert.match(result.error.message, /cuecard exited \(SIGKILL\)\. The worker stopped during the call; it is started again at the next one\./)
  assert.doesNotMatch(result.error.message, /cuecard dsh install/)
})

test('a bash call\'s own exit code reaches its PostToolUse hook event', async (t) => {
  const { log } = fakeCore(home, { output: '' })
  const hooks = join(home.config, 'cuecard', 'dsh-hooks.json')
  writeFileSync(hooks, '{"hooks": {}}\n')
  t.after(() => rmSync(hooks, { force: true }))
  const root = await bootBoth()
  t.after(() => root.fiber.dispose())
  const keep = setInterval(() => {}, 1000)
  t.after(() => clearInterval(keep))
  while (!process.env[HOOK_ENV]) await new Promise((r) => setTimeout(r, 10))
  const [port, secret] = readFileSync(process.env[HOOK_ENV], 'utf8').trim().split(' ')
  // the command printed DSH's own failure marker itself, and exited 0
  const value = { kind: 'foreground', exitCode: 0, signal: null, timedOut: false, aborted: false }
  const exec = { name: 'bash', callId: 'call-7', arguments: { command: 'echo "[exit code: 3]"' } }
  await root.waterfall('tools/post-execute', exec, { isError: false, value, content: [] },
    () => Promise.resolve({ kind: 'accept' }))
  const payload = { tool_name: 'bash', tool_use_id: 'call-7', tool_response: '[exit code: 3]' }
  await hookRequest(Number(port), `${secret} PostToolUse\n${JSON.stringify(payload)}\n`)
  const other = { ...payload, tool_use_id: 'call-8' }  // nothing kept: the text decides
  await hookRequest(Number(port), `${secret} PostToolUse\n${JSON.stringify(other)}\n`)
  const sent = fakeRequests(log).requests.filter((r) => r.op === 'hook').map((r) => JSON.parse(r.payload))
  assert.deepEqual(sent, [{ ...payload, exit_code: 0 }, other])
})

test('with the hooks installed, a typed message gets its project memories through the worker; cuecard\'s own deliveries cost nothing', async (t) => {
  const context = '<memory-data source="cuecard">\nDeploy with make deploy-staging.\n</memory-data>'
  const { log } = fakeCore(home, { output: JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: context } }) })
  const hooks = join(home.config, 'cuecard', 'dsh-hooks.json')
  writeFileSync(hooks, '{"hooks": {}}\n')
  t.after(() => rmSync(hooks, { force: true }))
  const root = new Context()
  await root.plugin(SystemPrompt, {})
  await root.plugin(ToolRuntime, {})
  await root.plugin(discipline, { enabled: false }) // no recall: the prompt's memories only
  t.after(() => root.fiber.dispose())
  const decision = await turn(root, 'how do we deploy?')
  const [delivered] = decision.messages.filter((m) => m.source.plugin === discipline.name)
  assert.equal(delivered.content[0].text, context)
  assert.deepEqual(delivered.source, { kind: 'plugin', plugin: discipline.name, form: 'notice', summary: 'cuecard project memories' })
  assert.ok(Object.isFrozen(delivered))
  // DSH's message made of a PostToolUse delivery, and a tool loop's empty batch: no request
  const own = createUserMessage({ content: [{ type: 'text', text: context }], source: { kind: 'plugin', plugin: 'hooks-claude-code' } })
  const agent = { id: 's', session: { header: { id: 's', cwd: home.dir } } }
  for (const messages of [[own], []]) {
    const d = await root.waterfall('agent/pre-step', { agent, messages, turn: 1, step: 2, signal: signal() },
      () => Promise.resolve({ kind: 'enter', messages }))
    assert.equal(d.messages.length, messages.length)
  }
  const hookRequests = fakeRequests(log).requests.filter((r) => r.op === 'hook')
  assert.equal(hookRequests.length, 1)
  assert.equal(hookRequests[0].event, 'UserPromptSubmit')
  assert.deepEqual(JSON.parse(hookRequests[0].payload), { session_id: 's', transcript_path: '', cwd: home.dir, hook_event_name: 'UserPromptSubmit', prompt: 'how do we deploy?' })
  assert.equal(fakeRequests(log).requests.filter((r) => r.op === 'recall').length, 0)
})
