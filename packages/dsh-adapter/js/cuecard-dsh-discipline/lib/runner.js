// Runs the Python side of cuecard for a DeepSeek Harness plugin: an interpreter chosen only from
// an allowlist of keys, `-I -m cuecard.dsh_adapter <args>` spawned without a shell, the request on
// stdin, a timeout, output bounded and redacted again.
//
// Isolation: the session's folder is a repository the agent works in, so nothing it holds may
// run. Python starts in isolated mode (`-I`: no working folder or script folder on sys.path, no
// PYTHON* variables, no user site), its working folder is the filesystem root, and the session
// folder reaches cuecard only as data (CUECARD_PROJECT_DIR). `uv312` runs uv with `--no-project
// --no-config`, so uv neither reads nor creates a project (.venv, uv.lock) anywhere.
//
// This file is identical in cuecard-dsh-memory/lib and cuecard-dsh-discipline/lib, so that each
// plugin loads without the other; a test asserts the two copies are the same.

import { spawn } from 'node:child_process'
import { accessSync, constants, readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, isAbsolute, join, parse } from 'node:path'

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

// Credential shapes, mirroring cuecard.core._text (the core redacts first; this is a second pass).
const SECRET_SHAPES = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g,
  /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g,
  /\b(?:gh[pousr]_[A-Za-z0-9_]{20,}|github_pat_[A-Za-z0-9_]{20,})/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g,
  /\bsk-[A-Za-z0-9_-]{12,}/g,
  /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g,
  /\bBearer\s+(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{20,}=*/gi,
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s@/]{3,}@[^\s]+/gi,
]
const LABEL =
  '(?:[A-Za-z0-9]+[_-])*' +
  '(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key' +
  '|client[_-]?secret|secret[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token)'
const ASSIGNED = new RegExp(
  `(?<![A-Za-z0-9_-])(${LABEL})(?![A-Za-z0-9_-])(["']?\\s*(?::=|=|:)\\s*)(["']?)([^\\s"',;]{6,})`,
  'gi',
)
const NOT_A_VALUE =
  /^(?:\d+|\$.*|<.*>|\{.*\}|\[.*|%.*|\*+|x+|none|null|nil|true|false|undefined|os\.environ.*|process\.env.*|env\(.*|getenv.*|redacted|\[redacted\]|changeme)$/i

/** Replace every credential-shaped value with `[redacted]`. */
export function redact(text) {
  let out = String(text)
  for (const shape of SECRET_SHAPES) out = out.replace(shape, '[redacted]')
  return out.replace(ASSIGNED, (whole, label, sep, quote, value) =>
    NOT_A_VALUE.test(value) ? whole : `${label}${sep}${quote}[redacted]`)
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

/**
 * Spawn `<interpreter> -I -m cuecard.dsh_adapter ...args` with `input` on stdin, no shell, from
 * CHILD_CWD; `cwd` (the session folder) is passed as CUECARD_PROJECT_DIR.
 * Resolves `{code, stdout, stderr, overflow}` or `{error, kind}`; never rejects.
 */
export function runCuecard({ python = 'default', args, input = '', timeoutMs = 25000, signal, cwd, env = process.env }) {
  const interpreter = resolveInterpreter(python, env)
  if (interpreter.error) return Promise.resolve({ error: interpreter.error, kind: 'unconfigured' })
  return new Promise((resolve) => {
    let child
    try {
      // Its own process group, so a timeout stops the whole tree (uv run starts a child python).
      child = spawn(interpreter.command, [...interpreter.prefix, ...PYTHON_FLAGS, '-m', 'cuecard.dsh_adapter', ...args], {
        shell: false, windowsHide: true, stdio: ['pipe', 'pipe', 'pipe'], cwd: CHILD_CWD,
        env: childEnvironment(env, cwd),
        detached: process.platform !== 'win32',
      })
    } catch (err) {
      resolve({ error: `could not start ${interpreter.command}: ${err.message}`, kind: 'spawn' })
      return
    }
    const out = []
    const err = []
    let outBytes = 0
    let errBytes = 0
    let overflow = false
    let timedOut = false
    let settled = false
    const stop = () => {
      try {
        if (process.platform !== 'win32' && child.pid) process.kill(-child.pid, 'SIGKILL')
        else child.kill('SIGKILL')
      } catch { /* already gone */ }
    }
    const timer = setTimeout(() => {
      timedOut = true
      stop()
      finish({ error: `cuecard did not answer within ${timeoutMs} ms`, kind: 'timeout' })
    }, timeoutMs)
    const onAbort = () => {
      stop()
      finish({ error: 'cancelled', kind: 'aborted' })
    }
    signal?.addEventListener?.('abort', onAbort, { once: true })
    const finish = (value) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal?.removeEventListener?.('abort', onAbort)
      resolve(value)
    }
    child.stdout.on('data', (chunk) => {
      outBytes += chunk.length
      if (outBytes > MAX_STDOUT_BYTES) { overflow = true; stop(); return }
      out.push(chunk)
    })
    child.stderr.on('data', (chunk) => {
      if (errBytes < 65536) err.push(chunk)
      errBytes += chunk.length
    })
    child.on('error', (e) => finish({
      error: e.code === 'ENOENT' ? `interpreter not found: ${interpreter.command}. ${INSTALL_HINT}` : `could not run cuecard: ${e.message}`,
      kind: e.code === 'ENOENT' ? 'missing' : 'spawn',
    }))
    child.on('close', (code, sig) => {
      const stderr = Buffer.concat(err).toString('utf8')
      if (timedOut) return finish({ error: `cuecard did not answer within ${timeoutMs} ms`, kind: 'timeout' })
      if (signal?.aborted) return finish({ error: 'cancelled', kind: 'aborted' })
      if (overflow) return finish({ error: `cuecard printed more than ${MAX_STDOUT_BYTES} bytes`, kind: 'overflow' })
      finish({ code: code ?? (sig ? 128 : 1), stdout: Buffer.concat(out).toString('utf8'), stderr })
    })
    child.stdin.on('error', () => { /* the child may exit before reading */ })
    child.stdin.end(input)
  })
}

/**
 * Run one tool call (`call <tool>`) and return the tool value `{ok, output, error?}`:
 * output redacted again, bounded with a visible marker and wrapped as `<memory-data>`.
 */
export async function callTool({ tool, request, ...options }) {
  const run = await runCuecard({ ...options, args: ['call', tool], input: JSON.stringify(request) })
  if (run.error) return { ok: false, output: '', error: redact(run.error) }
  let response
  try {
    response = JSON.parse(run.stdout)
  } catch {
    response = undefined
  }
  if (!response || typeof response !== 'object' || typeof response.ok !== 'boolean') {
    const why = run.code === 0 ? 'an answer that is not a JSON response' : `exit status ${run.code}`
    const detail = lastLines(run.stderr || run.stdout)
    return {
      ok: false, output: '',
      error: redact(`cuecard dsh call ${tool} failed (${why})${detail ? `: ${detail}` : ''}. ` +
        'Check that the recorded interpreter has cuecard-dsh-adapter installed (`cuecard dsh install`).'),
    }
  }
  if (!response.ok) {
    return { ok: false, output: '', error: bound(redact(String(response.error ?? 'cuecard refused the call'))) }
  }
  const output = String(response.output ?? '')
  const value = { ok: true, output: output.trim() ? bound(ensureWrapped(redact(output))) : '' }
  if (response.data && typeof response.data === 'object') value.data = response.data
  return value
}
