// Runs the Python side of cuecard for a DeepSeek Harness plugin: one long-lived worker per host
// process (`<interpreter> -I -m cuecard.dsh_adapter serve`, JSON lines over stdin and stdout),
// an interpreter chosen only from an allowlist of keys, spawned without a shell, restarted when
// it dies, a bounded queue, a timeout per call, stopped with the host; output bounded, and what
// the plugin shows of its own redacted.
//
// Isolation: the session's folder is a repository the agent works in, so nothing it holds may
// run. Python starts in isolated mode (`-I`: no working folder or script folder on sys.path, no
// PYTHON* variables, no user site), its working folder is the filesystem root, and the session
// folder reaches cuecard only as data (CUECARD_PROJECT_DIR). `uv312` runs uv with `--no-project
// --no-config`, so uv neither reads nor creates a project (.venv, uv.lock) anywhere.
//
// The one source of both plugins' runner: each plugin's lib/runner.js links here, and the
// wheel's build (hatch_build.py) puts a copy into each plugin, which an npm tarball of it
// holds, so that each plugin loads without the other; the build fails on a copy that differs.

import { spawn } from 'node:child_process'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { homedir } from 'node:os'
import { delimiter, isAbsolute, join, parse } from 'node:path'
import { RULES } from './secrets.js'

/** Most characters of output a tool hands to the model. */
export const MAX_OUTPUT_CHARS = 1024 * 1024
/** Most bytes read from the child before it is stopped (a well-behaved core bounds itself). */
export const MAX_STDOUT_BYTES = 4 * 1024 * 1024
export const TRUNCATION_MARKER = '\n[output truncated by cuecard: 1 MiB limit]\n'
/** The only interpreter keys a configuration may name. */
export const INTERPRETER_KEYS = Object.freeze(['default', 'uv312'])
/** The interpreter flags: isolated mode, so nothing in the working folder is importable. */
export const PYTHON_FLAGS = Object.freeze(['-I'])
/** uv's arguments for `uv312`: no project discovery, no uv.toml or pyproject.toml read. */
export const UV_PREFIX = Object.freeze(['run', '--no-project', '--no-config', '--python', '3.12', 'python'])
/** Where the child runs: a folder no repository controls (the filesystem root). */
export const CHILD_CWD = parse(process.cwd()).root
export const INSTALL_HINT =
  'Run `cuecard dsh install` with the Python that has cuecard installed; it records that ' +
  'interpreter as `default` for these plugins.'

const OPEN_TAG = /<\s*\/?\s*memory-data\b/gi
const CLOSE = '</memory-data>'

// Credentials. What the worker answers has been redacted by core's detector (the worker does it
// to every answer, on RE2: linear in any text), and is passed on as it came. What the plugin
// shows of its own (a worker's standard error, a line that is not JSON, a setting's value, a
// failure) is redacted here, with core's own rules (cuecard.core.engine._secrets) generated into
// secrets.js by tools/secrets/js_rules.py, over at most REDACT_WINDOW characters: JavaScript's
// engine backtracks, and some of those rules take time quadratic in a line's length. Each rule redacts
// what core's does (the longest group of at least 8 characters where the rule says so, else the
// first group, else the match without the separators around it); a value assigned to a
// credential's name is kept when it is a reference (`$X`, `<x>`, `os.environ[...]`) or a word of
// prose, as in core.
const SECRET_RULES = RULES.rules.map((rule) => ({ re: new RegExp(rule.source, rule.flags), longest: rule.longest }))
const ASSIGNED = new RegExp(RULES.assigned.source, RULES.assigned.flags)
const REFERENCE = new RegExp(RULES.reference.source, RULES.reference.flags)
const PROSE = new Set(RULES.prose)
const SEPARATORS = RULES.context

function valueSpan(match, longest) {
  const groups = match.indices.slice(1).filter((span, i) => span && match[i + 1])
  if (groups.length) {
    if (!longest) return groups[0]
    const best = groups.reduce((a, b) => (b[1] - b[0] > a[1] - a[0] ? b : a))
    if (best[1] - best[0] >= 8) return best
  }
  let [start, end] = match.indices[0]
  while (start < end && SEPARATORS.includes(match.input[start])) start += 1
  while (end > start && SEPARATORS.includes(match.input[end - 1])) end -= 1
  return [start, end]
}

function assignedSpans(text) {
  const spans = []
  for (const match of text.matchAll(ASSIGNED)) {
    const { label, value } = match.groups
    if (REFERENCE.test(value) || PROSE.has(value.toLowerCase().replace(/[.,:]+$/, ''))) continue
    if (label.includes(' ') && !(/\d/.test(value) && /\p{L}/u.test(value))) continue
    spans.push(match.indices.groups.value)
  }
  return spans
}

/** The longest text `redact` is given (see `tail`). */
export const REDACT_WINDOW = 16384

/**
 * The end of `text` in at most REDACT_WINDOW characters, for `lastLines`: whole lines where the
 * end holds a line break (so that no credential is cut where a shown line begins), else the head
 * of its one long last line.
 */
export function tail(text) {
  const s = String(text)
  if (s.length <= REDACT_WINDOW) return s
  const next = s.indexOf('\n', s.length - REDACT_WINDOW)
  if (next >= 0 && next < s.length - 1) return s.slice(next + 1)
  const start = s.lastIndexOf('\n', s.length - REDACT_WINDOW) + 1
  return s.slice(start, start + REDACT_WINDOW)
}

/** Replace every credential in `text` with `[redacted]` (give it at most REDACT_WINDOW characters). */
export function redact(text) {
  const out = String(text)
  const spans = assignedSpans(out)
  for (const rule of SECRET_RULES) {
    for (const match of out.matchAll(rule.re)) {
      const span = valueSpan(match, rule.longest)
      if (span[1] > span[0]) spans.push(span)
    }
  }
  if (!spans.length) return out
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const merged = []
  for (const [start, end] of spans) {
    const last = merged[merged.length - 1]
    if (last && start <= last[1]) last[1] = Math.max(last[1], end)
    else merged.push([start, end])
  }
  let result = ''
  let at = 0
  for (const [start, end] of merged) {
    result += out.slice(at, start) + '[redacted]'
    at = end
  }
  return result + out.slice(at)
}

/** Defuse `<memory-data>` tags so a text cannot close (or open) the wrapper. */
export function defuse(text) {
  return String(text).replace(OPEN_TAG, (tag) => tag.replace('<', '&lt;'))
}

/** Wrap `text` as data unless it already is exactly one wrapped block. */
export function ensureWrapped(text) {
  const s = String(text).trim()
  if (isOneBlock(s)) return s
  return `<memory-data>\n${defuse(s)}\n${CLOSE}`
}

/**
 * A delivery as the worker composes it: one `<memory-data>` block followed by plain lines (the
 * discipline instructions and the advisory line every delivery ends with). Anything else,
 * including a tag after the block, is wrapped whole as data.
 */
export function ensureDelivery(text) {
  const s = String(text).trim()
  const end = s.indexOf(`${CLOSE}\n`)
  if (end < 0) return ensureWrapped(s)
  const block = s.slice(0, end + CLOSE.length)
  const after = s.slice(end + CLOSE.length)
  if (isOneBlock(block) && !new RegExp(OPEN_TAG.source, 'i').test(after)) return s
  return ensureWrapped(s)
}

function isOneBlock(s) {
  if (!/^<memory-data(?:\s[^>\n]*)?>\n/.test(s) || !s.endsWith(CLOSE)) return false
  const inner = s.slice(s.indexOf('>') + 1, s.length - CLOSE.length)
  return !new RegExp(OPEN_TAG.source, 'i').test(inner)
}

/**
 * Bound `text` to `max` characters. A wrapped block keeps its closing tag; the cut is marked.
 */
export function bound(text, max = MAX_OUTPUT_CHARS, marker = TRUNCATION_MARKER) {
  const s = String(text)
  if (s.length <= max) return s
  const wrapped = s.trimEnd().endsWith(CLOSE)
  const tail = wrapped ? `${marker}${CLOSE}` : marker
  const keep = Math.max(0, max - tail.length)
  return `${s.slice(0, keep)}${tail}`.slice(0, max)
}

/** The cuecard config folder, as the Python side computes it. */
export function configDir(env = process.env) {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config')
  return join(base, 'cuecard')
}

/** The interpreter `cuecard dsh install` recorded, or undefined. */
export function recordedInterpreter(env = process.env) {
  try {
    const data = JSON.parse(readFileSync(join(configDir(env), 'dsh.json'), 'utf8'))
    const python = data?.python
    return typeof python === 'string' && isAbsolute(python) ? python : undefined
  } catch {
    return undefined
  }
}

function onPath(name, env) {
  for (const dir of String(env.PATH || '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch { /* not here */ }
  }
  return undefined
}

/**
 * Resolve an allowlisted interpreter key to `{command, prefix}`, or `{error}`.
 * Never accepts an executable string: only the keys in INTERPRETER_KEYS.
 */
export function resolveInterpreter(key, env = process.env) {
  if (!INTERPRETER_KEYS.includes(key)) {
    return { error: `python "${String(key).slice(0, 80)}" is not allowed: choose one of ${INTERPRETER_KEYS.join(', ')}` }
  }
  if (key === 'uv312') {
    const uv = onPath('uv', env)
    if (!uv) return { error: 'python "uv312" needs uv on PATH, and uv was not found' }
    return { command: uv, prefix: [...UV_PREFIX] }
  }
  const python = recordedInterpreter(env)
  if (!python) return { error: `no interpreter recorded for python "default". ${INSTALL_HINT}` }
  try {
    accessSync(python, constants.X_OK)
  } catch {
    return { error: `the recorded interpreter ${python} is missing or not executable. ${INSTALL_HINT}` }
  }
  return { command: python, prefix: [] }
}

function isDirectory(path) {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function lastLines(text, n = 3) {
  return String(text).trim().split('\n').slice(-n).join('\n').slice(0, 600)
}

/**
 * The child's environment: `env` with the session folder as CUECARD_PROJECT_DIR (data only: the
 * child runs from CHILD_CWD), or without it when there is no session folder.
 */
export function childEnvironment(env, project) {
  const out = { ...env }
  delete out.CUECARD_PROJECT_DIR
  if (project && isAbsolute(project) && isDirectory(project)) out.CUECARD_PROJECT_DIR = project
  return out
}

/** Most requests waiting for one worker; more are refused at once (`busy`). */
export const MAX_PENDING = 16
/** How long a worker asked to stop may take before it is killed. */
export const STOP_GRACE_MS = 2000
const REGISTRY = Symbol.for('cuecard.dsh.workers')

/**
 * One long-lived `<interpreter> -I -m cuecard.dsh_adapter serve` (JSON lines on stdin and
 * stdout), started on first use and again after it died, from CHILD_CWD, in its own process
 * group. Requests are answered in order; each has a timeout; at most MAX_PENDING wait.
 */
export class Worker {
  constructor(key, python, env) {
    this.key = key
    this.python = python
    this.env = env
    this.refs = 0
    this.child = undefined
    this.pending = new Map()
    this.nextId = 1
    this.buffer = ''
    this.stderr = ''
    this.starts = 0
    this.lastFailure = undefined
  }

  /** Spawn the worker unless it runs; returns an error string when it cannot start. */
  start() {
    if (this.child) return undefined
    const interpreter = resolveInterpreter(this.python, this.env)
    if (interpreter.error) return interpreter.error
    let child
    try {
      child = spawn(interpreter.command, [...interpreter.prefix, ...PYTHON_FLAGS, '-m', 'cuecard.dsh_adapter', 'serve'], {
        shell: false, windowsHide: true, stdio: ['pipe', 'pipe', 'pipe'], cwd: CHILD_CWD,
        env: childEnvironment(this.env), detached: process.platform !== 'win32',
      })
    } catch (err) {
      return `could not start ${interpreter.command}: ${err.message}`
    }
    this.child = child
    this.buffer = ''
    this.stderr = ''
    this.starts += 1
    // An idle worker must not keep the host alive: a pending request's timer does that.
    child.unref()
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.unref?.()
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => this.onData(child, chunk))
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk) => { this.stderr = (this.stderr + chunk).slice(-REDACT_WINDOW) })
    child.stdin.on('error', () => { /* the worker may exit before reading */ })
    child.on('error', (e) => this.onExit(child, e.code === 'ENOENT'
      ? `interpreter not found: ${interpreter.command}. ${INSTALL_HINT}`
      : `could not run cuecard: ${e.message}`, e.code === 'ENOENT' ? 'missing' : 'spawn'))
    child.on('close', (code, sig) => {
      const detail = lastLines(redact(tail(this.stderr)))
      const how = `cuecard exited (${sig ?? `status ${code}`})${detail ? `: ${detail}` : ''}. `
      // A worker that answered before and then died of a signal was stopped (killed, out of
      // memory), not installed wrongly; the next call starts it again.
      this.onExit(child, child.answered && sig
        ? `${how}The worker stopped during the call; it is started again at the next one.`
        : `${how}Check that the recorded interpreter has cuecard-dsh-adapter installed (\`cuecard dsh install\`).`, 'exit')
    })
    return undefined
  }

  onData(child, chunk) {
    if (child !== this.child) return
    this.buffer += chunk
    let at
    while ((at = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, at)
      this.buffer = this.buffer.slice(at + 1)
      if (!line.trim()) continue
      let answer
      try { answer = JSON.parse(line) } catch { answer = undefined }
      const waiting = answer && typeof answer === 'object' ? this.pending.get(answer.id) : undefined
      // What cuecard had to tell the user while answering (a cache rebuilt): the host's stderr.
      if (Array.isArray(answer?.notices)) for (const notice of answer.notices.slice(0, 5)) announce(String(notice), process.stderr, false)
      if (answer) child.answered = true
      if (waiting) waiting.finish(answer)
      else if (!answer) {
        this.kill(`cuecard answered with a line that is not JSON: ${lastLines(redact(tail(line)), 1)}`, 'protocol')
        return
      }
    }
    if (this.buffer.length > MAX_STDOUT_BYTES) {
      this.kill(`cuecard printed more than ${MAX_STDOUT_BYTES} bytes in one answer`, 'overflow')
    }
  }

  onExit(child, message, kind) {
    if (child !== this.child) return
    this.child = undefined
    this.failAll(message, kind)
  }

  failAll(message, kind) {
    for (const waiting of [...this.pending.values()]) waiting.finish({ error: message, kind })
  }

  /** Stop the worker now (its whole process group), failing what waits with `message`. */
  kill(message, kind) {
    const child = this.child
    this.child = undefined
    if (child) {
      try {
        if (process.platform !== 'win32' && child.pid) process.kill(-child.pid, 'SIGKILL')
        else child.kill('SIGKILL')
      } catch { /* already gone */ }
    }
    this.failAll(message, kind)
  }

  /** Ask the worker to end (end of input), and kill it if it lingers. */
  stop() {
    const child = this.child
    if (!child) return
    this.child = undefined
    this.failAll('cuecard was stopped', 'stopped')
    try { child.stdin.end() } catch { /* gone */ }
    const timer = setTimeout(() => {
      try { if (child.pid) process.kill(-child.pid, 'SIGKILL') } catch { /* gone */ }
    }, STOP_GRACE_MS)
    timer.unref?.()
    child.once('close', () => clearTimeout(timer))
  }

  /**
   * Send one request; resolves the worker's answer object, or `{error, kind}` (never rejects);
   * kinds: `unconfigured`, `missing`, `spawn`, `busy`, `timeout`, `aborted`, `exit`, `overflow`,
   * `protocol`, `stopped`.
   */
  request(op, body = {}, { timeoutMs = 25000, signal } = {}) {
    if (signal?.aborted) return Promise.resolve({ error: 'cancelled', kind: 'aborted' })
    if (this.pending.size >= MAX_PENDING) {
      return Promise.resolve({ error: `cuecard is busy: ${this.pending.size} calls are waiting`, kind: 'busy' })
    }
    const problem = this.start()
    if (problem) return Promise.resolve({ error: problem, kind: 'unconfigured' })
    const id = this.nextId++
    const child = this.child
    return new Promise((resolve) => {
      let timer
      const onAbort = () => waiting.finish({ error: 'cancelled', kind: 'aborted' })
      const waiting = {
        finish: (answer) => {
          if (!this.pending.has(id)) return
          this.pending.delete(id)
          clearTimeout(timer)
          signal?.removeEventListener?.('abort', onAbort)
          resolve(answer)
        },
      }
      this.pending.set(id, waiting)
      timer = setTimeout(() => {
        // The worker is stuck on this call: stop it (what waits behind fails) and start afresh.
        waiting.finish({ error: `cuecard did not answer within ${timeoutMs} ms`, kind: 'timeout' })
        if (this.child === child) this.kill('cuecard was restarted after a call timed out', 'timeout')
      }, timeoutMs)
      signal?.addEventListener?.('abort', onAbort, { once: true })
      try {
        child.stdin.write(JSON.stringify({ id, op, ...body }) + '\n')
      } catch (err) {
        waiting.finish({ error: `could not reach cuecard: ${err.message}`, kind: 'exit' })
      }
    })
  }

  /**
   * Remember a failure for the status route (redacted, short), and record it in the cuecard
   * config folder (`dsh-status.json`), where `cuecard doctor` reports it.
   */
  noteFailure(message) {
    const failure = { at: new Date().toISOString(), message: lastLines(redact(tail(message)), 3) }
    this.lastFailure = failure
    try {
      const folder = configDir(this.env)
      mkdirSync(folder, { recursive: true })
      const temp = join(folder, `.dsh-status.${process.pid}.tmp`)
      writeFileSync(temp, JSON.stringify({ last_failure: failure }) + '\n', { mode: 0o600 })
      renameSync(temp, join(folder, 'dsh-status.json'))
    } catch { /* the status route still has it */ }
  }
}

const SETTING_PROBLEMS = Symbol.for('cuecard.dsh.settingProblems')

/**
 * Make a plugin's `Config` (a schemastery object) forgiving: the host validates a plugin's
 * settings before it starts the plugin, and one refused setting would fail the whole host's
 * boot. Each setting is checked against its own rule; one that breaks it is replaced by its
 * default and named in `settingProblems(config)`, which the plugin reports. The schema itself
 * (types, defaults, descriptions) is unchanged for the host's settings page.
 */
export function forgiving(schema) {
  Object.defineProperty(schema, '~standard', {
    configurable: true,
    get: () => ({ version: 1, vendor: 'cuecard', validate: (input) => ({ value: settle(schema, input) }) }),
  })
  return schema
}

function shown(value) {
  let text
  try { text = JSON.stringify(value) } catch { text = undefined }
  return redact(String(text ?? value).slice(0, REDACT_WINDOW)).slice(0, 80)
}

function settle(schema, input) {
  const problems = []
  let given = input ?? {}
  if (typeof given !== 'object' || Array.isArray(given)) {
    problems.push(`the settings must be a mapping of keys to values, not ${shown(given)}; all settings take their defaults`)
    given = {}
  }
  const value = {}
  for (const [key, field] of Object.entries(schema.dict ?? {})) {
    let result = field['~standard'].validate(given[key])
    if (result.issues) {
      const why = String(result.issues[0]?.message ?? 'invalid').replace(/\s+/g, ' ').slice(0, 160)
      result = field['~standard'].validate(undefined)
      problems.push(`setting \`${key}: ${shown(given[key])}\` is refused (${why}); using the default \`${shown(result.value)}\``)
    }
    if (result.value !== undefined) value[key] = result.value
  }
  Object.defineProperty(value, SETTING_PROBLEMS, { value: Object.freeze(problems) })
  return value
}

/** What `forgiving` refused in `config` (one line each), or an empty list. */
export function settingProblems(config) {
  return config?.[SETTING_PROBLEMS] ?? []
}

/**
 * Say which settings were refused (see `forgiving`): on the host's standard error, in the log,
 * and as the worker's last failure (the status route, the sidebar panel, `cuecard doctor`).
 */
export function reportSettings(plugin, config, worker, log) {
  for (const problem of settingProblems(config)) {
    const message = `${plugin}: ${problem}`
    worker.noteFailure(message)
    log.error('%s', message)
    announce(message)
  }
}

const ANNOUNCED = Symbol.for('cuecard.dsh.announced')

/**
 * Print a set-up problem once per host process on the standard error, the one place a headless
 * user sees (the host keeps plugin logs only in memory, and drops `warn`). With `setUp` false it
 * is a notice (a cache rebuilt, …), printed without the pointer to `cuecard doctor`.
 */
export function announce(problem, stream = process.stderr, setUp = true) {
  const seen = (globalThis[ANNOUNCED] ??= new Set())
  const text = lastLines(redact(tail(problem)), 2).replace(/\n/g, ' ').replace(/^cuecard: /, '')
  const line = setUp ? `cuecard: ${text} (run \`cuecard doctor\` for the DSH set-up)` : `cuecard: ${text}`
  if (seen.has(line)) return
  seen.add(line)
  try { stream.write(line + '\n') } catch { /* nowhere to say it */ }
}

function registry() {
  if (!globalThis[REGISTRY]) {
    globalThis[REGISTRY] = new Map()
    // Shut the workers down with the host, however it ends.
    process.once('exit', () => {
      for (const worker of globalThis[REGISTRY].values()) {
        try { if (worker.child?.pid) process.kill(-worker.child.pid, 'SIGKILL') } catch { /* gone */ }
      }
    })
  }
  return globalThis[REGISTRY]
}

/**
 * The worker for this interpreter key and environment, shared by every plugin of the host
 * process (each plugin holds one reference); `release()` it when the plugin unloads: the last
 * release stops it.
 */
export function acquireWorker({ python = 'default', env = process.env } = {}) {
  const key = JSON.stringify([python, env.CUECARD_VAULT ?? '', env.XDG_CONFIG_HOME ?? '',
    env.XDG_CACHE_HOME ?? '', env.HOME ?? '', env.PATH ?? ''])
  const workers = registry()
  let worker = workers.get(key)
  if (!worker) {
    worker = new Worker(key, python, { ...env })
    workers.set(key, worker)
  }
  worker.refs += 1
  serveHooks(worker, env)
  let released = false
  return {
    worker,
    release() {
      if (released) return
      released = true
      worker.refs -= 1
      if (worker.refs <= 0 && workers.get(key) === worker) {
        workers.delete(key)
        worker.stop()
        const hooks = globalThis[HOOK_SERVER]
        if (hooks?.worker === worker) hooks.close()
      }
    },
  }
}

/**
 * The hook bridge's way to the worker. The bridge (`@deepseek-ai/dsh-hooks-claude-code`) runs
 * each hook as `bash -c COMMAND` with the host's environment; the command cuecard writes
 * (`cuecard dsh install --hooks`) reads the address file named by CUECARD_DSH_HOOK and hands
 * the event to this host's worker over loopback TCP with bash's own `/dev/tcp` (no interpreter
 * is started), falling back to `python -I -m cuecard.dsh_adapter hook EVENT` when there is no
 * address. The address file (`<config>/dsh-run/<pid>.hook`, `PORT SECRET`, in a 0700 folder,
 * mode 0600) holds a fresh random secret: a connection that does not open with it is closed.
 *
 * Request: `SECRET EVENT\n` then the payload (one JSON line); answer: what `cuecard dsh hook
 * EVENT` prints, then the connection closes. Started only where `cuecard dsh install --hooks`
 * wrote `dsh-hooks.json`, once per host process, for the first worker acquired.
 */
export const HOOK_ENV = 'CUECARD_DSH_HOOK'
/** The longest hook request read (the secret and event line, and a payload of 4 MiB). */
export const MAX_HOOK_BYTES = 4 * 1024 * 1024 + 1024
/** How long one hook event may take in the worker; the bridge's own limit is 30 s. */
export const HOOK_TIMEOUT_MS = 25000
const HOOK_SERVER = Symbol.for('cuecard.dsh.hookServer')
const EVENT_RE = /^[A-Za-z]{1,40}$/

const EXIT_CODES = Symbol.for('cuecard.dsh.exitCodes')
/** How many bash exit codes are kept for the PostToolUse hook that follows each call. */
export const EXIT_CODES_KEPT = 256

/**
 * Keep the exit code of each finished `bash` call (the tool's own value, by call id) for the
 * PostToolUse hook event of that call: the bridge hands the hook only the result text, where
 * DSH marks a failure with a last line `[exit code: N]` that a command can print itself. The
 * listener runs first (`prepend`) and changes nothing.
 */
export function watchExitCodes(ctx) {
  const codes = (globalThis[EXIT_CODES] ??= new Map())
  ctx.on('tools/post-execute', (exec, result, next) => {
    const value = result?.value
    if (exec?.name === 'bash' && exec.callId && value?.kind === 'foreground' && Number.isInteger(value.exitCode) &&
        value.signal === null && !value.timedOut && !value.aborted && !value.sandbox?.denied) {
      codes.set(String(exec.callId), value.exitCode)
      while (codes.size > EXIT_CODES_KEPT) codes.delete(codes.keys().next().value)
    }
    return next()
  }, { prepend: true })
}

/** The hook payload (a JSON line) with the bash call's own exit code, when one was kept. */
function withExitCode(event, payload) {
  const codes = globalThis[EXIT_CODES]
  if (event !== 'PostToolUse' || !codes?.size) return payload
  try {
    const value = JSON.parse(payload)
    const id = String(value?.tool_use_id ?? '')
    if (value?.tool_name !== 'bash' || !codes.has(id)) return payload
    const code = codes.get(id)
    codes.delete(id)
    return JSON.stringify({ ...value, exit_code: code })
  } catch {
    return payload
  }
}

/** Whether `cuecard dsh install --hooks` wrote the hook bridge's configuration. */
export function hooksInstalled(env = process.env) {
  return existsSync(join(configDir(env), 'dsh-hooks.json'))
}

/**
 * The project memories cuecard's UserPromptSubmit hook gives for `text` (the user's message),
 * through the worker: `{text}` (the hook's additionalContext, as the worker redacted it; "" for none) or
 * `{error, kind}`. The discipline plugin asks this at each step that claims a message a person
 * typed, instead of the bridge, which would start a shell for every claimed message, its own
 * PostToolUse deliveries included.
 */
export async function promptContext({ worker, text, session, cwd, timeoutMs = HOOK_TIMEOUT_MS, signal }) {
  const payload = JSON.stringify({
    session_id: typeof session === 'string' ? session : '', transcript_path: '',
    cwd: projectOf(cwd) ?? '', hook_event_name: 'UserPromptSubmit', prompt: String(text),
  })
  const answer = await worker.request('hook', { event: 'UserPromptSubmit', payload }, { timeoutMs, signal })
  if (answer?.kind) return { error: answer.error, kind: answer.kind }
  if (answer?.error) return { error: String(answer.error), kind: 'failed' }
  let context
  try { context = JSON.parse(answer?.output || 'null')?.hookSpecificOutput?.additionalContext } catch { context = undefined }
  return { text: typeof context === 'string' ? bound(context.trim(), 2 * MAX_HOOK_TEXT) : '' }
}
/** About what a hook may deliver at one event (the delivery limit's ceiling). */
const MAX_HOOK_TEXT = 10000

/** The folder of this user's hook address files. */
export function hookRunDir(env = process.env) {
  return join(configDir(env), 'dsh-run')
}

function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

function removeStale(folder) {
  try {
    for (const name of readdirSync(folder)) {
      const pid = Number(name.match(/^(\d+)\.hook$/)?.[1])
      if (pid && pid !== process.pid && !alive(pid)) rmSync(join(folder, name), { force: true })
    }
  } catch { /* nothing to tidy */ }
}

function readRequest(socket, onRequest) {
  let chunks = []
  let size = 0
  let done = false
  socket.setTimeout(HOOK_TIMEOUT_MS + 5000, () => socket.destroy())
  socket.on('error', () => { /* the hook command went away */ })
  socket.on('data', (chunk) => {
    if (done) return
    chunks.push(chunk)
    size += chunk.length
    const data = Buffer.concat(chunks)
    chunks = [data]
    const head = data.indexOf(10)
    const end = head < 0 ? -1 : data.indexOf(10, head + 1)
    if (end < 0) {
      if (size > MAX_HOOK_BYTES) { done = true; socket.destroy() }
      return
    }
    done = true
    onRequest(data.subarray(0, head).toString('utf8'), data.subarray(head + 1, end).toString('utf8'))
  })
}

/**
 * Listen for the hook bridge's events and answer them through `worker` (see HOOK_ENV). Returns
 * `{port, file, close()}`, or undefined when the hooks are not installed or a server runs.
 */
export function serveHooks(worker, env = process.env) {
  if (globalThis[HOOK_SERVER] || !hooksInstalled(env)) return undefined
  const secret = randomBytes(24).toString('hex')
  const expected = Buffer.from(secret)
  const folder = hookRunDir(env)
  const file = join(folder, `${process.pid}.hook`)
  const server = createServer((socket) => {
    socket.setNoDelay(true)
    readRequest(socket, async (head, payload) => {
      const [given = '', event = ''] = head.split(' ')
      const key = Buffer.from(given)
      if (key.length !== expected.length || !timingSafeEqual(key, expected) || !EVENT_RE.test(event)) {
        socket.destroy()
        return
      }
      const answer = await worker.request('hook', { event, payload: withExitCode(event, payload) }, { timeoutMs: HOOK_TIMEOUT_MS })
      const output = typeof answer?.output === 'string' ? answer.output : ''
      if (answer?.error) worker.noteFailure(`a ${event} hook failed: ${answer.error}`)
      socket.end(output)
    })
  })
  const held = { server, file, worker, port: undefined, close() {
    if (globalThis[HOOK_SERVER] === held) globalThis[HOOK_SERVER] = undefined
    try { server.close() } catch { /* closed */ }
    try { rmSync(file, { force: true }) } catch { /* gone */ }
    if (process.env[HOOK_ENV] === file) delete process.env[HOOK_ENV]
  } }
  globalThis[HOOK_SERVER] = held
  server.on('error', () => held.close())
  server.listen(0, '127.0.0.1', () => {
    if (globalThis[HOOK_SERVER] !== held) return
    held.port = server.address().port
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 })
      chmodSync(folder, 0o700)
      removeStale(folder)
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
      writeFileSync(temp, `${held.port} ${secret}\n`, { mode: 0o600, flag: 'wx' })
      renameSync(temp, file)
      process.env[HOOK_ENV] = file // the bridge's shells inherit it
    } catch (err) {
      worker.noteFailure(`the hook bridge cannot reach the worker (${err.message}); hooks start Python instead`)
      held.close()
    }
  })
  server.unref()
  process.once('exit', () => { try { rmSync(file, { force: true }) } catch { /* gone */ } })
  return held
}

/** Run `fn` with a worker: the one given, or one held for this call only. */
async function withWorker({ worker, python, env = process.env }, fn) {
  if (worker) return fn(worker)
  const held = acquireWorker({ python, env })
  try {
    return await fn(held.worker)
  } finally {
    held.release()
  }
}

function projectOf(cwd) {
  return cwd && isAbsolute(cwd) && isDirectory(cwd) ? cwd : undefined
}

/** Whether the interpreter runs cuecard: the worker's `hello` answer, or `{error, kind}`. */
export async function hello({ worker, python, env, timeoutMs = 25000, signal } = {}) {
  const answer = await withWorker({ worker, python, env }, (w) => w.request('hello', {}, { timeoutMs, signal }))
  if (answer?.ok === true) return answer
  if (answer?.kind) return { error: answer.error, kind: answer.kind }
  return { error: `cuecard did not answer hello: ${lastLines(redact(tail(JSON.stringify(answer ?? null))), 1)}`, kind: 'protocol' }
}

/**
 * Recall for one user message through the worker: `{output, topics, searched}` or
 * `{error, kind}`; `output` is "" when the gate stays shut or nothing matched.
 */
export async function recallText({ worker, python, env, text, mode, limit, maxChars, cwd, session, timeoutMs = 15000, signal }) {
  const answer = await withWorker({ worker, python, env }, (w) => w.request('recall', {
    text, mode, limit, max_chars: maxChars, project: projectOf(cwd),
    session: typeof session === 'string' && session ? session : undefined,
  }, { timeoutMs, signal }))
  if (answer?.kind) return { error: answer.error, kind: answer.kind }
  if (answer?.error) return { error: String(answer.error), kind: 'failed' }
  return { output: String(answer?.output ?? ''), topics: answer?.topics ?? [], searched: Boolean(answer?.searched) }
}

/**
 * Run one tool call through the worker and return the tool value `{ok, output, error?}`:
 * output (redacted by the worker) bounded with a visible marker and wrapped as `<memory-data>`.
 */
export async function callTool({ tool, request, worker, python, env, cwd, timeoutMs = 25000, signal }) {
  const answer = await withWorker({ worker, python, env }, (w) => w.request('call', {
    tool, request, project: projectOf(cwd),
  }, { timeoutMs, signal }))
  if (answer?.kind) return { ok: false, output: '', error: answer.error, kind: answer.kind }
  const response = answer?.response
  if (!response || typeof response !== 'object' || typeof response.ok !== 'boolean') {
    const detail = answer?.error ? `: ${lastLines(answer.error)}` : ''
    return {
      ok: false, output: '', kind: 'failed',
      error: `cuecard dsh call ${tool} failed${detail}. ` +
        'Check that the recorded interpreter has cuecard-dsh-adapter installed (`cuecard dsh install`).',
    }
  }
  if (!response.ok) {
    return { ok: false, output: '', error: bound(String(response.error ?? 'cuecard refused the call')) }
  }
  const output = String(response.output ?? '')
  const value = { ok: true, output: output.trim() ? bound(ensureWrapped(output)) : '' }
  if (response.data && typeof response.data === 'object') value.data = response.data
  return value
}
