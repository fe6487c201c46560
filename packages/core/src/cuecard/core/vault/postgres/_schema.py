"""The PostgreSQL vault's schema: versioned migrations, applied in order, each once.

``migrate`` takes a transaction-scoped advisory lock, so two ``vault migrate-db`` runs at once
apply each step once; a second run finds nothing to do. A vault whose schema is older than this
version of cuecard is refused by every other command with the command that fixes it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import psycopg

__all__ = ["LATEST", "MIGRATIONS", "current_version", "migrate"]

_LOCK_KEY = 0x63756563  # "cuec": the advisory lock migrations serialise on


def _templates() -> str:
    """``VALUES`` rows of every canonical note's template (the text ``vault init`` writes)."""
    from cuecard.core.vault._layout import DEFAULT

    return ",\n".join(
        "('{}', '{}')".format(note, text.replace("'", "''"))
        for note, text in DEFAULT.notes_templates.items()
    )


def _cjk_class() -> str:
    """The CJK ranges of the folder vault's tokenizer as a regular-expression class body."""
    from cuecard.core.recall._tokens import _CJK_RANGES

    return "".join(f"\\x{low:x}-\\x{high:x}" for low, high in _CJK_RANGES)


# Version 3 turns each note into a document (``cuecard_notes.text``, the note exactly as a
# folder vault holds it) from which ``cuecard_facts`` is derived. A version-2 database's facts
# become the text of their note: the note's template, its live lines in order, then its
# superseded lines under ``## Superseded`` (what promotions would have written), and positions
# are renumbered to match; every canonical note without facts gets its template, as ``vault
# init`` gives a folder vault. Submission names are unique among waiting submissions and among
# processed ones, as in the inbox and processed folders (an archived name that is taken gets
# ``-2``, ``-3``, ... as the folder's archiving gives it).
_V3_NOTES = """
CREATE TABLE cuecard_notes (
    note       text        PRIMARY KEY,
    text       text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TEMPORARY TABLE cuecard_templates (note text PRIMARY KEY, text text NOT NULL)
    ON COMMIT DROP;
INSERT INTO cuecard_templates (note, text) VALUES
"""
_V3_REST = """;
WITH parts AS (
    SELECT f.note,
           coalesce(t.text, '# ' || f.note || E'\n\n')
           || coalesce(string_agg(f.line, E'\n' ORDER BY f.position)
                       FILTER (WHERE f.status <> 'superseded') || E'\n', '') AS head,
           string_agg(f.line, E'\n' ORDER BY f.position)
               FILTER (WHERE f.status = 'superseded') AS old
    FROM cuecard_facts f LEFT JOIN cuecard_templates t ON t.note = f.note
    GROUP BY f.note, t.text
)
INSERT INTO cuecard_notes (note, text)
SELECT note,
       CASE WHEN old IS NULL THEN head
            ELSE rtrim(head, E'\n') || E'\n\n## Superseded\n\n' || old || E'\n' END
FROM parts;
INSERT INTO cuecard_notes (note, text) SELECT note, text FROM cuecard_templates
ON CONFLICT (note) DO NOTHING;
UPDATE cuecard_facts f SET position = r.n
FROM (SELECT note, id, row_number() OVER (
          PARTITION BY note ORDER BY status = 'superseded', position) AS n
      FROM cuecard_facts) r
WHERE f.note = r.note AND f.id = r.id AND f.position <> r.n;
CREATE TABLE cuecard_forgotten (
    seq          bigserial   PRIMARY KEY,
    file         text        NOT NULL,
    line         text        NOT NULL,
    id           text,
    forgotten_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cuecard_forgotten_file ON cuecard_forgotten (file, seq);
CREATE TABLE cuecard_archives (
    name       text        PRIMARY KEY,
    text       text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE cuecard_digest_cursor (
    name       text        PRIMARY KEY,
    size       bigint      NOT NULL,
    sha256     text        NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE cuecard_pending_list (
    one        boolean     PRIMARY KEY DEFAULT true CHECK (one),
    generated  text        NOT NULL,
    command    text        NOT NULL
);
ALTER TABLE cuecard_submissions DROP CONSTRAINT cuecard_submissions_name_key;
CREATE UNIQUE INDEX cuecard_submissions_waiting ON cuecard_submissions (name)
    WHERE status <> 'processed';
CREATE UNIQUE INDEX cuecard_submissions_archived ON cuecard_submissions (name)
    WHERE status = 'processed';
ALTER TABLE cuecard_adjudications ADD COLUMN line text;
ALTER TABLE cuecard_promotions ADD COLUMN line text;
ALTER TABLE cuecard_promotions ALTER COLUMN submission DROP NOT NULL;
"""
_NOTES_V3 = "".join((_V3_NOTES, _templates(), _V3_REST))

# Version 6 gives search what BM25 reads without visiting the facts: each active fact's terms
# (``cuecard_postings``: its tsvector's lexemes and the CJK characters and bigrams of its text
# and headings, with the fact's length in distinct lexemes), each term's document count
# (``cuecard_terms``) and the count and total length of the active facts
# (``cuecard_search_stats``). Statement triggers keep the three in line in the transaction
# that writes the facts, whatever writes them. They fire after the generation trigger (by
# name), so a writer takes the generation row first and fact writers queue there rather
# than deadlock on term rows. ``fid`` is a fact's number for the postings; an edit keeps it.
_POSTINGS_V6 = r"""
ALTER TABLE cuecard_facts ADD COLUMN fid bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX cuecard_facts_fid ON cuecard_facts (fid);
CREATE INDEX cuecard_facts_position ON cuecard_facts (note, position);
CREATE FUNCTION cuecard_terms_of(tsv tsvector, body text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT t), '{}') FROM (
        SELECT unnest(tsvector_to_array(tsv))
        UNION ALL
        SELECT substr(r[1], i, 2)
        FROM regexp_matches(body, '[__CJK__]{2,}', 'g') AS r,
             generate_series(1, length(r[1]) - 1) AS i
        UNION ALL
        SELECT r[1] FROM regexp_matches(body, '[__CJK__]', 'g') AS r
    ) AS terms(t)
$$;
CREATE TABLE cuecard_postings (
    term text   COLLATE "C" NOT NULL,
    fid  bigint NOT NULL,
    len  integer NOT NULL,
    PRIMARY KEY (term, fid) INCLUDE (len)
);
CREATE TABLE cuecard_terms (
    term text    COLLATE "C" PRIMARY KEY,
    df   integer NOT NULL
);
CREATE TABLE cuecard_search_stats (
    one    boolean PRIMARY KEY DEFAULT true CHECK (one),
    docs   bigint  NOT NULL,
    length bigint  NOT NULL
);
-- The facts whose terms leave the postings (gone) and enter them (came), as [fid, tsv, body]
-- arrays. PL/pgSQL, so each session plans these statements once.
CREATE FUNCTION cuecard_postings_apply(gone jsonb, came jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    WITH c AS (
        SELECT (e->>1)::tsvector AS tsv, -1 AS d FROM jsonb_array_elements(gone) AS e
        UNION ALL
        SELECT (e->>1)::tsvector, 1 FROM jsonb_array_elements(came) AS e
    )
    UPDATE cuecard_search_stats SET
        docs = docs + (SELECT coalesce(sum(d), 0) FROM c),
        length = length + (SELECT coalesce(sum(d * length(tsv)), 0) FROM c);
    DELETE FROM cuecard_postings p
    USING (SELECT (e->>0)::bigint AS fid, t FROM jsonb_array_elements(gone) AS e,
                  unnest(cuecard_terms_of((e->>1)::tsvector, e->>2)) AS t) x
    WHERE p.term = x.t AND p.fid = x.fid;
    INSERT INTO cuecard_postings (term, fid, len)
    SELECT t, (e->>0)::bigint, length((e->>1)::tsvector) FROM jsonb_array_elements(came) AS e,
           unnest(cuecard_terms_of((e->>1)::tsvector, e->>2)) AS t;
    INSERT INTO cuecard_terms (term, df)
    SELECT t, sum(d) FROM (
        SELECT t, 1 FROM jsonb_array_elements(came) AS e,
               unnest(cuecard_terms_of((e->>1)::tsvector, e->>2)) AS t
        UNION ALL
        SELECT t, -1 FROM jsonb_array_elements(gone) AS e,
               unnest(cuecard_terms_of((e->>1)::tsvector, e->>2)) AS t
    ) AS change(t, d)
    GROUP BY t HAVING sum(d) <> 0 ORDER BY t
    ON CONFLICT (term) DO UPDATE SET df = cuecard_terms.df + EXCLUDED.df;
END
$$;
CREATE FUNCTION cuecard_postings_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    gone jsonb := '[]';
    came jsonb := '[]';
BEGIN
    IF TG_OP = 'INSERT' THEN
        came := (SELECT coalesce(jsonb_agg(jsonb_build_array(
                     n.fid, n.tsv, n.text || E'\n' || n.context)), '[]')
                 FROM new_rows n WHERE n.status = 'active');
    ELSIF TG_OP = 'DELETE' THEN
        gone := (SELECT coalesce(jsonb_agg(jsonb_build_array(
                     o.fid, o.tsv, o.text || E'\n' || o.context)), '[]')
                 FROM old_rows o WHERE o.status = 'active');
    ELSIF TG_OP = 'UPDATE' THEN
        -- Only a change of status, text or headings changes what is searched (not uses).
        gone := (SELECT coalesce(jsonb_agg(jsonb_build_array(
                     o.fid, o.tsv, o.text || E'\n' || o.context)), '[]')
                 FROM old_rows o JOIN new_rows n USING (fid)
                 WHERE o.status = 'active' AND (n.status, n.text, n.context)
                       IS DISTINCT FROM (o.status, o.text, o.context));
        came := (SELECT coalesce(jsonb_agg(jsonb_build_array(
                     n.fid, n.tsv, n.text || E'\n' || n.context)), '[]')
                 FROM new_rows n JOIN old_rows o USING (fid)
                 WHERE n.status = 'active' AND (n.status, n.text, n.context)
                       IS DISTINCT FROM (o.status, o.text, o.context));
    ELSE
        TRUNCATE cuecard_postings, cuecard_terms;
        UPDATE cuecard_search_stats SET docs = 0, length = 0;
        RETURN NULL;
    END IF;
    IF jsonb_array_length(gone) > 0 OR jsonb_array_length(came) > 0 THEN
        PERFORM cuecard_postings_apply(gone, came);
    END IF;
    RETURN NULL;
END
$$;
INSERT INTO cuecard_postings (term, fid, len)
SELECT t, f.fid, length(f.tsv) FROM cuecard_facts f,
       unnest(cuecard_terms_of(f.tsv, f.text || E'
' || f.context)) AS t
WHERE f.status = 'active';
INSERT INTO cuecard_terms (term, df) SELECT term, count(*) FROM cuecard_postings GROUP BY term;
INSERT INTO cuecard_search_stats (one, docs, length)
SELECT true, count(*), coalesce(sum(length(tsv)), 0) FROM cuecard_facts WHERE status = 'active';
CREATE TRIGGER cuecard_facts_postings_delete AFTER DELETE ON cuecard_facts
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_postings_sync();
CREATE TRIGGER cuecard_facts_postings_insert AFTER INSERT ON cuecard_facts
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_postings_sync();
CREATE TRIGGER cuecard_facts_postings_update AFTER UPDATE ON cuecard_facts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_postings_sync();
CREATE TRIGGER cuecard_facts_postings_truncate AFTER TRUNCATE ON cuecard_facts
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_postings_sync();
ANALYZE cuecard_postings, cuecard_terms;
""".replace("__CJK__", _cjk_class())

# Version 7 tells each machine's mirror of the facts (``_mirror``) which notes changed since the
# generation it holds, so it fetches only those: ``cuecard_note_generations`` holds, per note,
# the generation of the last change to its facts (every note a statement touched), set by
# triggers, whoever writes: statement triggers on insert, delete and truncate (after the
# generation's, by name) and a row trigger on an update of a searched column, so the uses a
# search records do not fire it.
_NOTE_GENERATIONS_V7 = """
-- Room on each page of facts for the new row versions a use record writes, so they stay on
-- the page and no index changes (HOT updates): recording a search's uses cost 0.8-1.5 ms per
-- search with full pages, 0.4 ms with this (pages written from now on; VACUUM FULL rewrites
-- the old ones).
ALTER TABLE cuecard_facts SET (fillfactor = 80);
CREATE TABLE cuecard_note_generations (
    note text   PRIMARY KEY,
    n    bigint NOT NULL
);
INSERT INTO cuecard_note_generations (note, n)
SELECT DISTINCT note, (SELECT n FROM cuecard_generation) FROM cuecard_facts;
CREATE FUNCTION cuecard_notes_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE cuecard_note_generations SET n = (SELECT n FROM cuecard_generation);
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO cuecard_note_generations (note, n)
        SELECT DISTINCT note, (SELECT n FROM cuecard_generation) FROM new_rows ORDER BY 1
        ON CONFLICT (note) DO UPDATE SET n = EXCLUDED.n;
    ELSE
        INSERT INTO cuecard_note_generations (note, n)
        SELECT DISTINCT note, (SELECT n FROM cuecard_generation) FROM old_rows ORDER BY 1
        ON CONFLICT (note) DO UPDATE SET n = EXCLUDED.n;
    END IF;
    RETURN NULL;
END
$$;
-- An update, row by row and only of the searched columns (a use record never fires it): the
-- notes a fact leaves and joins. Row triggers run before the statement's generation bump, so
-- the note takes the generation after it (any mirror's stamp read before this commit is lower).
CREATE FUNCTION cuecard_note_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO cuecard_note_generations (note, n)
    SELECT DISTINCT x, (SELECT n + 1 FROM cuecard_generation)
    FROM unnest(ARRAY[OLD.note, NEW.note]) AS x
    ORDER BY 1
    ON CONFLICT (note) DO UPDATE SET n = EXCLUDED.n;
    RETURN NULL;
END
$$;
CREATE TRIGGER cuecard_facts_notes_delete AFTER DELETE ON cuecard_facts
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_notes_changed();
CREATE TRIGGER cuecard_facts_notes_insert AFTER INSERT ON cuecard_facts
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_notes_changed();
CREATE TRIGGER cuecard_facts_notes_update
    AFTER UPDATE OF note, id, line, text, shown, status, context ON cuecard_facts FOR EACH ROW
    WHEN ((OLD.note, OLD.id, OLD.line, OLD.text, OLD.shown, OLD.status, OLD.context)
          IS DISTINCT FROM (NEW.note, NEW.id, NEW.line, NEW.text, NEW.shown, NEW.status,
                            NEW.context))
    EXECUTE FUNCTION cuecard_note_changed();
-- After cuecard_facts_truncated (by name), which bumps the generation on a truncate.
CREATE TRIGGER cuecard_facts_truncated_notes AFTER TRUNCATE ON cuecard_facts
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_notes_changed();
"""

# Version 8 gives each fact the dates it is searched by (``dates``: the date terms of its text
# and of its innermost dated heading, as ``recall._dates`` gives the folder vault's index and
# the mirror; filled from Python, as the headings are: ``_fill_dates``) and makes them lexemes
# of ``tsv``, so the postings, term counts and statistics hold them through the triggers. The
# postings' trigger compares ``dates`` too; the generation triggers need not (dates follow from
# the text and headings, and each mirror finds them itself).
_DATES_V8 = """
ALTER TABLE cuecard_facts ADD COLUMN dates text NOT NULL DEFAULT '';
ALTER TABLE cuecard_facts DROP COLUMN tsv;
ALTER TABLE cuecard_facts ADD COLUMN tsv tsvector GENERATED ALWAYS AS
    (to_tsvector('simple', text || E'\\n' || context || E'\\n' || dates)) STORED;
CREATE INDEX cuecard_facts_tsv ON cuecard_facts USING gin (tsv);
CREATE OR REPLACE FUNCTION cuecard_postings_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    gone jsonb := '[]';
    came jsonb := '[]';
BEGIN
    IF TG_OP = 'INSERT' THEN
        came := (SELECT coalesce(jsonb_agg(jsonb_build_array(
                     n.fid, n.tsv, n.text || E'\\n' || n.context)), '[]')
                 FROM new_rows n WHERE n.status = 'active');
    ELSIF TG_OP = 'DELETE' THEN
        gone := (SELECT coalesce(jsonb_agg(jsonb_build_array(
                     o.fid, o.tsv, o.text || E'\\n' || o.context)), '[]')
                 FROM old_rows o WHERE o.status = 'active');
    ELSIF TG_OP = 'UPDATE' THEN
        -- Only a change of status, text, headings or dates changes what is searched.
        gone := (SELECT coalesce(jsonb_agg(jsonb_build_array(
                     o.fid, o.tsv, o.text || E'\\n' || o.context)), '[]')
                 FROM old_rows o JOIN new_rows n USING (fid)
                 WHERE o.status = 'active' AND (n.status, n.text, n.context, n.dates)
                       IS DISTINCT FROM (o.status, o.text, o.context, o.dates));
        came := (SELECT coalesce(jsonb_agg(jsonb_build_array(
                     n.fid, n.tsv, n.text || E'\\n' || n.context)), '[]')
                 FROM new_rows n JOIN old_rows o USING (fid)
                 WHERE n.status = 'active' AND (n.status, n.text, n.context, n.dates)
                       IS DISTINCT FROM (o.status, o.text, o.context, o.dates));
    ELSE
        TRUNCATE cuecard_postings, cuecard_terms;
        UPDATE cuecard_search_stats SET docs = 0, length = 0;
        RETURN NULL;
    END IF;
    IF jsonb_array_length(gone) > 0 OR jsonb_array_length(came) > 0 THEN
        PERFORM cuecard_postings_apply(gone, came);
    END IF;
    RETURN NULL;
END
$$;
"""

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "facts with status and provenance, inbox submissions, conflicts, adjudications, uses",
        """
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE cuecard_facts (
    note        text        NOT NULL,
    id          text        NOT NULL,
    position    integer     NOT NULL,
    line        text        NOT NULL,
    text        text        NOT NULL,
    shown       text        NOT NULL,
    status      text        NOT NULL DEFAULT 'active'
                            CHECK (status IN ('active', 'superseded', 'placeholder')),
    source      text,
    written     date,
    promoted_at timestamptz NOT NULL DEFAULT now(),
    uses        integer     NOT NULL DEFAULT 0,
    last_used   date,
    tsv         tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
    PRIMARY KEY (note, id)
);
CREATE INDEX cuecard_facts_tsv ON cuecard_facts USING gin (tsv);
CREATE INDEX cuecard_facts_trgm ON cuecard_facts USING gin (text gin_trgm_ops);
CREATE INDEX cuecard_facts_id ON cuecard_facts (id);
CREATE TABLE cuecard_submissions (
    seq          bigserial   PRIMARY KEY,
    name         text        NOT NULL UNIQUE,
    agent        text        NOT NULL,
    submitted_at timestamptz NOT NULL DEFAULT now(),
    body         text        NOT NULL,
    facts        integer     NOT NULL,
    status       text        NOT NULL DEFAULT 'pending'
                             CHECK (status IN ('pending', 'processed', 'dropped'))
);
CREATE INDEX cuecard_submissions_pending ON cuecard_submissions (seq) WHERE status = 'pending';
CREATE TABLE cuecard_conflicts (
    seq        bigserial   PRIMARY KEY,
    id         text        NOT NULL UNIQUE,
    note       text        NOT NULL,
    existing   text        NOT NULL,
    incoming   text        NOT NULL,
    source     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    open       boolean     NOT NULL DEFAULT true
);
CREATE TABLE cuecard_adjudications (
    seq        bigserial   PRIMARY KEY,
    conflict   text        NOT NULL,
    decision   text        NOT NULL,
    decided_at timestamptz NOT NULL DEFAULT now(),
    detail     text        NOT NULL DEFAULT ''
);
CREATE TABLE cuecard_promotions (
    seq         bigserial   PRIMARY KEY,
    promoted_at timestamptz NOT NULL DEFAULT now(),
    submission  text        NOT NULL,
    added       integer     NOT NULL,
    detail      text        NOT NULL DEFAULT ''
);
""",
    ),
    (
        2,
        "the pending list as a table; reviewed submissions",
        """
ALTER TABLE cuecard_submissions DROP CONSTRAINT cuecard_submissions_status_check;
ALTER TABLE cuecard_submissions ADD CONSTRAINT cuecard_submissions_status_check
    CHECK (status IN ('pending', 'reviewed', 'processed', 'dropped'));
CREATE TABLE cuecard_pending (
    seq         bigserial   PRIMARY KEY,
    fact        text        NOT NULL,
    note        text        NOT NULL,
    source      text        NOT NULL,
    replaces    text        NOT NULL DEFAULT '',
    reviewed_at timestamptz NOT NULL DEFAULT now()
);
""",
    ),
    (
        3,
        "notes as documents, forgotten lines, session archives and their digest cursor, log lines",
        _NOTES_V3,
    ),
    (
        4,
        "a generation number of the searchable facts, bumped by every change to them",
        """
CREATE TABLE cuecard_generation (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    n   bigint  NOT NULL
);
INSERT INTO cuecard_generation (one, n) VALUES (true, 1);
CREATE FUNCTION cuecard_facts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE cuecard_generation SET n = n + 1;
    RETURN NULL;
END
$$;
-- Use records (uses, last_used) are not a change of what is searched: they do not bump it.
CREATE TRIGGER cuecard_facts_changed
    AFTER INSERT OR DELETE OR UPDATE OF note, id, line, text, shown, status ON cuecard_facts
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_facts_changed();
CREATE TRIGGER cuecard_facts_truncated AFTER TRUNCATE ON cuecard_facts
    FOR EACH STATEMENT EXECUTE FUNCTION cuecard_facts_changed();
""",
    ),
    (
        5,
        "each fact's headings (dates, sessions, sections) searchable with it",
        # The headings are filled from each note's text after this runs (``_fill_context``).
        """
ALTER TABLE cuecard_facts ADD COLUMN context text NOT NULL DEFAULT '';
ALTER TABLE cuecard_facts DROP COLUMN tsv;
ALTER TABLE cuecard_facts ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('simple', text || E'\\n' || context)) STORED;
CREATE INDEX cuecard_facts_tsv ON cuecard_facts USING gin (tsv);
DROP TRIGGER cuecard_facts_changed ON cuecard_facts;
CREATE TRIGGER cuecard_facts_changed
    AFTER INSERT OR DELETE OR UPDATE OF note, id, line, text, shown, status, context
    ON cuecard_facts FOR EACH STATEMENT EXECUTE FUNCTION cuecard_facts_changed();
""",
    ),
    (6, "postings, term document counts and search statistics kept by triggers", _POSTINGS_V6),
    (
        7,
        "the generation of each note's last change to its facts; room on the facts' pages for "
        "use records",
        _NOTE_GENERATIONS_V7,
    ),
    (8, "each fact's dates searched as terms", _DATES_V8),
)

LATEST = MIGRATIONS[-1][0]


def current_version(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    """The schema version the database holds (0: none yet)."""
    row = conn.execute("SELECT to_regclass('cuecard_schema') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT coalesce(max(version), 0) FROM cuecard_schema").fetchone()
    return int(str(found[0])) if found else 0


def _fill_context(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Give every fact the headings its note's text puts it under (schema 5's new column)."""
    from cuecard.core.vault.postgres._notes import fact_contexts

    notes = conn.execute("SELECT note, text FROM cuecard_notes").fetchall()
    with conn.cursor() as cur:
        for note, text in notes:
            rows = [
                (context, str(note), ident)
                for ident, context in fact_contexts(str(text)).items()
                if context
            ]
            if rows:
                cur.executemany(
                    "UPDATE cuecard_facts SET context = %s WHERE note = %s AND id = %s", rows
                )


def _fill_dates(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Give every fact the dates its text and headings name (schema 8's new column)."""
    from cuecard.core.vault.postgres._notes import fact_dates

    rows = [
        (str(note), str(ident), dates)
        for note, ident, text, context in conn.execute(
            "SELECT note, id, text, context FROM cuecard_facts"
        ).fetchall()
        for dates in (fact_dates(str(text), str(context)),)
        if dates
    ]
    if rows:  # one statement: the postings' trigger then runs once for all of them
        notes, ids, dates = (list(column) for column in zip(*rows, strict=True))
        conn.execute(
            "UPDATE cuecard_facts f SET dates = m.dates "
            "FROM unnest(%s::text[], %s::text[], %s::text[]) AS m(note, id, dates) "
            "WHERE f.note = m.note AND f.id = m.id",
            (notes, ids, dates),
        )


def migrate(conn: psycopg.Connection[tuple[object, ...]]) -> list[int]:
    """Apply the migrations the database lacks, each in its own transaction; their versions."""
    applied: list[int] = []
    for version, summary, sql in MIGRATIONS:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS cuecard_schema (version integer PRIMARY KEY, "
                "summary text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            if current_version(conn) >= version:
                continue
            conn.execute(sql.encode("utf-8"))
            if version == 5:
                _fill_context(conn)
            if version == 8:
                _fill_dates(conn)
            conn.execute(
                "INSERT INTO cuecard_schema (version, summary) VALUES (%s, %s)",
                (version, summary),
            )
            applied.append(version)
    return applied
