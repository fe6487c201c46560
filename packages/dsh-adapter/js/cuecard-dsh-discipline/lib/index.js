// cuecard-dsh-discipline: automatic recall at the first step of a DeepSeek Harness turn.
// It never writes the vault: it asks the Python worker (`cuecard dsh serve`, started once per
// host process, which holds the memory-sensitive topic gate) for recall on the turn's first
// genuine user message and, on a hit, adds one new frozen plugin message. A turn the gate turns
// away costs one line to the running worker and starts no process. Nothing the host passed in
// is mutated.

import z from '@deepseek-ai/schemastery'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { INTERPRETER_KEYS, acquireWorker, announce, bound, ensureDelivery, forgiving, hello, hooksInstalled, promptContext, recallText, reportSettings, watchExitCodes } from './runner.js'

export const name = 'cuecard-dsh-discipline'
export const MAX_TEXT_CHARS = 8000
/** Most characters of a step's typed messages handed to cuecard's prompt hook. */
export const MAX_PROMPT_CHARS = 50000
const RELAY_PREFIX = /^\s*\[[^\]\n]{0,80}agent-relay[^\]\n]{0,40}\]/i

export const Config = forgiving(z.object({
  enabled: z.boolean().default(true)
    .description('Turn automatic recall on or off; off registers nothing.'),
  mode: z.union(['auto', 'always']).default('auto')
    .description('`auto`: recall only when the first user message of a turn touches a memory-sensitive topic; `always`: every turn.'),
  python: z.union([...INTERPRETER_KEYS]).default('default')
    .description('Interpreter key: `default` (recorded by `cuecard dsh install`) or `uv312`. Never an executable path.'),
  vault: z.string().default('')
    .description('Vault folder passed to cuecard as CUECARD_VAULT; empty: cuecard finds it.'),
  limit: z.natural().min(1).max(50).default(5)
    .description('Most recalled facts per turn.'),
  maxChars: z.natural().min(200).max(20000).default(1600)
    .description('Most characters injected per turn, closing tag included.'),
  timeoutMs: z.natural().min(500).max(60000).default(15000)
    .description('How long recall may take before the turn goes on without it.'),
}))

/** The text of a message's text blocks. */
export function messageText(message) {
  return (message?.content ?? []).filter((b) => b?.type === 'text').map((b) => String(b.text ?? '')).join('\n')
}

/** A message a person typed: not relayed, not injected by a plugin (this one included). */
export function isGenuineUserMessage(message) {
  const source = message?.source
  if (message?.role !== 'user' || source?.kind !== 'user') return false
  if (source.form === 'relay' || source.relay || source.plugin) return false
  return !RELAY_PREFIX.test(messageText(message))
}

export function apply(ctx, config) {
  const log = ctx.logger(name)
  const env = config.vault ? { ...process.env, CUECARD_VAULT: config.vault } : process.env
  // With cuecard's hooks installed, this listener also gives the project memories a person's
  // message triggers (cuecard's UserPromptSubmit), in place of the hook bridge.
  const prompts = hooksInstalled(env)
  if (!config.enabled && !prompts) {
    log.info('disabled by configuration')
    return
  }
  let held
  ctx.effect(() => {
    held = acquireWorker({ python: config.python, env })
    return () => held.release()
  }, 'cuecard worker')
  const worker = held.worker
  reportSettings(name, config, worker, log)
  watchExitCodes(ctx)
  // Checked at startup: a missing interpreter, one without cuecard, or no vault is logged as an
  // error (the host drops `warn`) and kept as the worker's last failure for the status route.
  hello({ worker, timeoutMs: config.timeoutMs }).then((answer) => {
    if (answer.kind === 'stopped') return // unloaded before the check ended
    const problem = answer.error ? `cuecard core unavailable, recall will be skipped: ${answer.error}` : answer.vault_problem
    if (problem) {
      worker.noteFailure(problem)
      log.error('%s', problem)
      announce(answer.error ?? problem) // the cause, as the memory plugin prints it: once
    }
  })

  /** The project memories the step's typed messages trigger, as a message, or undefined. */
  async function promptMemories(payload, messages) {
    const typed = messages.filter(isGenuineUserMessage).map(messageText).join('\n').slice(0, MAX_PROMPT_CHARS)
    if (!typed.trim()) return undefined // a tool loop, a relayed or plugin message: nothing to do
    const header = payload.agent?.session?.header
    const run = await promptContext({ worker, text: typed, session: header?.id, cwd: header?.cwd, signal: payload.signal })
    if (run.error) {
      if (run.kind !== 'aborted') {
        worker.noteFailure(`the project memories of a prompt were not delivered: ${run.error}`)
        log.error('the project memories of a prompt were not delivered: %s', run.error)
      }
      return undefined
    }
    if (!run.text) return undefined
    return createUserMessage({
      content: [{ type: 'text', text: run.text }],
      source: { kind: 'plugin', plugin: name, form: 'notice', summary: 'cuecard project memories' },
    })
  }

  ctx.on('agent/pre-step', async (payload, next) => {
    let decision = await next()
    if (!decision || decision.kind !== 'enter' || !Array.isArray(decision.messages)) return decision
    if (payload?.signal?.aborted) return decision
    const claimed = decision.messages
    if (prompts) {
      const delivered = await promptMemories(payload, claimed)
      if (delivered) decision = { ...decision, messages: [...decision.messages, delivered] }
    }
    if (!config.enabled || payload?.step !== 1) return decision
    const first = claimed.find(isGenuineUserMessage)
    if (!first) return decision
    const text = messageText(first).slice(0, MAX_TEXT_CHARS)
    if (!text.trim()) return decision
    const run = await recallText({
      worker, text, mode: config.mode, limit: config.limit, maxChars: config.maxChars,
      timeoutMs: config.timeoutMs, signal: payload.signal, cwd: payload.agent?.session?.header?.cwd,
      session: payload.agent?.session?.header?.id,
    })
    if (run.error) {
      if (run.kind === 'aborted') return decision
      const why = `recall failed, the turn goes on without it: ${run.error}`
      worker.noteFailure(why)
      log.error('%s', why)
      return decision
    }
    if (!run.output.trim()) return decision // no memory-sensitive topic, or no hit
    const recalled = bound(ensureDelivery(run.output), config.maxChars, '\n[…]\n')
    const message = createUserMessage({
      content: [{ type: 'text', text: recalled }],
      source: { kind: 'plugin', plugin: name, form: 'notice', summary: 'cuecard memory recall' },
    })
    log.info('recalled %d characters for %s', recalled.length, payload.agent?.session?.header?.id ?? 'a session')
    return { ...decision, messages: [...decision.messages, message] }
  }, { prepend: true })
}
