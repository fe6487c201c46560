"""What the commands that write a memory (``add``, ``revise``) share: kinds, event kinds and the
trigger flags' syntax."""

from __future__ import annotations

__all__ = ["EVENT_KINDS", "KINDS", "TRIGGER_SYNTAX"]

EVENT_KINDS = ("prompt", "read", "edit", "write", "run", "search")
KINDS = ("decision", "trap", "failed_approach", "fact", "procedure")
TRIGGER_SYNTAX = """\
trigger syntax:
  --paths GLOB        repository-relative, / separators, gitignore rules: * and ? stay
                      within a folder, ** spans folders, [abc] is a class, {a,b} is either;
                      a glob without / matches that name in any folder, and a folder's
                      glob covers the files under it ('src/billing/**', '*.sql', 'docs/')
  --commands PATTERN  the words a command starts with, program first ('alembic downgrade'
                      fires on 'alembic downgrade -1'); the program is compared by name
                      (/usr/bin/alembic is alembic); an argument may end with * to match any
                      word starting with the rest ('rm -rf build*' fires on 'rm -rf
                      build-old'); a trailing / is ignored ('rm -rf build' is 'rm -rf
                      build/'); * anywhere else is refused. Each simple command of a line
                      (a && b, a | b) is matched on its own
  --keywords WORD     a word or phrase of the prompt, matched as the same word: case,
                      surrounding punctuation and inflection ignored ('migration' fires on
                      'the new Migrations.')
"""
