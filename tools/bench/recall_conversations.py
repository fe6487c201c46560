"""Generate the conversational recall set (deterministic): multi-session dialogues, one fact a turn.

Writes tools/bench/recall_conversation_set.json, read by tools/bench/recall_quality.py. Each
conversation is one vault: two people talk over eight sessions; a note holds two sessions (``#``
the pair and the months, ``##`` the session's number, date and time), one fact line per turn
(``Name: what they said``). What they say is drawn from hand-written exchanges (a question, the
answer, a reaction) mixed with small talk, with the names, dates and order drawn from a seeded
generator, so the same seed always writes the same file.

Questions are phrased as a person asks them and labelled with their evidence turns (the exact
fact lines), in three kinds:

- ``single``: one fact answers it (often the reply just after the question that names the
  topic, with the words inflected differently from the question);
- ``multi``: two or more facts of one person on one topic, in different sessions;
- ``time``: anchored on a session's date ("... on 8 May 2023", "... in June 2023") among facts
  of the same person on the same topic at other dates, or asking when something happened.

Usage: python tools/bench/recall_conversations.py [--seed N] [--check]
(``--check`` regenerates in memory and fails when the committed file differs: the set is frozen.)
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
from pathlib import Path

OUT = Path(__file__).with_name("recall_conversation_set.json")
SEED = 20261201
CONVERSATIONS = 10
SESSIONS = 8
TOPICS_PER_CONVERSATION = 16

PAIRS = [
    ("Caroline", "Melanie"),
    ("Jon", "Gina"),
    ("Andrew", "Audrey"),
    ("Deborah", "Jolene"),
    ("Evan", "Sam"),
    ("Calvin", "Dave"),
    ("Joanna", "Nate"),
    ("Tim", "John"),
    ("Maria", "Priya"),
    ("Hiro", "Lena"),
]

# Per category: what a user asks about all of one person's facts on it, and the topic's name in
# a date-anchored question.
CATEGORIES = {
    "pet": ("What pets does {B} have?", "pets"),
    "trip": ("Where has {B} travelled?", "a trip"),
    "hobby": ("What hobbies has {B} taken up?", "a hobby"),
    "work": ("What has {B} said about work?", "work"),
    "family": ("Which family members has {B} talked about?", "family"),
    "food": ("What dishes has {B} cooked?", "cooking"),
    "book": ("Which books has {B} been reading?", "reading"),
    "sport": ("What sports does {B} do?", "sport"),
    "event": ("Which events did {B} go to?", "an event"),
}

# (category, A's question, B's answer: the evidence, A's reaction, a user's question about it,
# a user's "when" question or "").
EXCHANGES = [
    (
        "pet",
        "How long do you usually walk them for?",
        "Usually for about an hour, twice a day; the park by the river is their favourite.",
        "That sounds like a lovely routine.",
        "How long does {B} walk the dogs each day?",
        "",
    ),
    (
        "pet",
        "Did you end up getting that puppy?",
        "Yes! We adopted a beagle from the shelter and named him Biscuit.",
        "Biscuit is such a cute name!",
        "What is the name of {B}'s dog?",
        "When did {B} adopt the beagle?",
    ),
    (
        "pet",
        "How is your cat doing these days?",
        "Luna had surgery on her paw, but the vet says she is recovering well.",
        "Poor thing, I hope she heals fast.",
        "What happened to {B}'s cat?",
        "When did {B}'s cat have an operation?",
    ),
    (
        "pet",
        "Are you still thinking about getting fish?",
        "I set up a small aquarium with three guppies and a snail in the living room.",
        "That must be relaxing to watch.",
        "What fish does {B} keep?",
        "",
    ),
    (
        "trip",
        "Where did you go over the long weekend?",
        "We drove up the coast to Big Sur and camped two nights under the redwoods.",
        "I've always wanted to see those trees.",
        "Where did {B} go camping?",
        "When did {B} camp at Big Sur?",
    ),
    (
        "trip",
        "How was the flight to Japan?",
        "Long, but worth it: Kyoto's temples in the autumn were the highlight of the whole year.",
        "I'm so jealous, that sounds magical.",
        "Which Japanese city did {B} enjoy most?",
        "When did {B} visit Kyoto?",
    ),
    (
        "trip",
        "Did you manage to visit your grandmother?",
        "I took the train to Lisbon and stayed with her for a week by the sea.",
        "She must have loved having you there.",
        "Where does {B}'s grandmother live?",
        "",
    ),
    (
        "trip",
        "What was the best part of the road trip?",
        "Hiking to the top of Angels Landing in Zion; my legs ached for days afterwards.",
        "That trail looks terrifying in photos!",
        "Which hike did {B} do in Zion?",
        "When did {B} hike Angels Landing?",
    ),
    (
        "hobby",
        "What have you been up to lately?",
        "I signed up for pottery classes on Saturday mornings; I made my first bowl last week.",
        "You'll have to show me the bowl!",
        "What class is {B} taking on weekends?",
        "When did {B} start pottery?",
    ),
    (
        "hobby",
        "Are you still painting?",
        "Mostly watercolours of sunsets now; I'm preparing three of them for a local exhibition.",
        "I'd love to come to the exhibition.",
        "What does {B} like to paint?",
        "",
    ),
    (
        "hobby",
        "How are the guitar lessons going?",
        "I finally learned to play Blackbird all the way through without stopping.",
        "That's a hard song to learn!",
        "Which song did {B} learn on guitar?",
        "",
    ),
    (
        "hobby",
        "Did you plant anything new this spring?",
        "Tomatoes, basil and a row of sunflowers along the fence; the garden is overflowing.",
        "Fresh tomatoes are the best.",
        "What is {B} growing in the garden?",
        "",
    ),
    (
        "work",
        "How's the new job treating you?",
        "I was promoted to team lead, so now I'm managing four engineers.",
        "Congratulations, you deserve it!",
        "How many people does {B} manage?",
        "When did {B} become a team lead?",
    ),
    (
        "work",
        "Any news from the office?",
        "We're migrating everything to the cloud, and I'm researching which provider to choose.",
        "That sounds like a big project.",
        "What is {B} researching at work?",
        "",
    ),
    (
        "work",
        "Are you still thinking about a career change?",
        "I enrolled in a counselling course because I want to support trans youth.",
        "That's such a meaningful path.",
        "What career is {B} pursuing?",
        "When did {B} enrol in the counselling course?",
    ),
    (
        "work",
        "How did the presentation go?",
        "The investors loved the demo and agreed to fund the next two years of the startup.",
        "Wow, that's huge news!",
        "What did the investors decide about {B}'s startup?",
        "",
    ),
    (
        "family",
        "How are your kids?",
        "My daughter just turned seven and wants to become an astronaut.",
        "Kids have the best dreams.",
        "How old is {B}'s daughter?",
        "",
    ),
    (
        "family",
        "Is your brother still abroad?",
        "He moved back from Berlin and is staying with us until he finds a flat.",
        "It must be nice to have him close again.",
        "Where did {B}'s brother live before?",
        "",
    ),
    (
        "family",
        "How was your parents' anniversary?",
        "We threw them a surprise party for their fortieth anniversary; Mum cried happy tears.",
        "That's so sweet.",
        "Which anniversary did {B}'s parents celebrate?",
        "When did {B} throw the surprise party?",
    ),
    (
        "family",
        "Did your sister have the baby?",
        "Yes, a little boy called Theo; I'm an aunt for the first time!",
        "Congratulations, Auntie!",
        "What is the name of {B}'s nephew?",
        "When was {B}'s nephew born?",
    ),
    (
        "food",
        "What did you make for dinner last night?",
        "I cooked a big pot of lentil curry with coconut milk; it lasted us three days.",
        "Yum, send me the recipe.",
        "What curry did {B} cook?",
        "",
    ),
    (
        "food",
        "Have you been baking again?",
        "I baked sourdough every weekend this month; the starter is called Doughy.",
        "Ha, I love that name.",
        "What bread does {B} bake?",
        "",
    ),
    (
        "food",
        "What was the best thing you ate on holiday?",
        "Grilled sardines at a tiny harbour restaurant, with bread and green wine.",
        "Now I'm hungry.",
        "What was {B}'s favourite meal on holiday?",
        "",
    ),
    (
        "food",
        "Did you try the new vegan place?",
        "We had the mushroom burgers there; honestly better than most beef ones.",
        "I'll have to go then.",
        "What did {B} order at the vegan restaurant?",
        "",
    ),
    (
        "book",
        "Read anything good lately?",
        "I finished Becoming by Michelle Obama; her story about growing up in Chicago moved me.",
        "I've heard great things about that book.",
        "Which memoir did {B} finish?",
        "",
    ),
    (
        "book",
        "What's on your nightstand right now?",
        "A collection of Mary Oliver's poems; I read one every night before sleeping.",
        "That's a beautiful habit.",
        "Whose poetry does {B} read before bed?",
        "",
    ),
    (
        "book",
        "Is the book club still going?",
        "We're discussing Dune this month, and I'm the one hosting the meeting.",
        "Dune is a classic.",
        "Which novel is {B}'s book club discussing?",
        "When did {B} host the book club?",
    ),
    (
        "book",
        "Do you still listen to audiobooks on your commute?",
        "Right now it's Project Hail Mary; I keep laughing out loud on the bus.",
        "People must think you're crazy.",
        "Which audiobook makes {B} laugh?",
        "",
    ),
    (
        "sport",
        "Are you still running?",
        "I ran my first half marathon in two hours and five minutes!",
        "That's an amazing time.",
        "How fast did {B} finish the half marathon?",
        "When did {B} run a half marathon?",
    ),
    (
        "sport",
        "How's the swimming going?",
        "I swim at the community pool three mornings a week before work.",
        "That's dedication.",
        "How often does {B} go swimming?",
        "",
    ),
    (
        "sport",
        "Did you join that climbing gym?",
        "I did, and I managed my first overhang route on Thursday.",
        "Your arms must be sore.",
        "What did {B} manage at the climbing gym?",
        "",
    ),
    (
        "sport",
        "Are you playing in the tennis league this year?",
        "Yes, my doubles partner and I won the club tournament last weekend.",
        "Champions!",
        "What tournament did {B} win?",
        "When did {B} win the tennis tournament?",
    ),
    (
        "event",
        "How was the concert?",
        "Seeing Coldplay live in the stadium was incredible; we sang along to every song.",
        "I'm so glad you got tickets.",
        "Which band did {B} see in concert?",
        "When did {B} see Coldplay?",
    ),
    (
        "event",
        "Did you go to the pride parade?",
        "I marched with the support group and carried our rainbow banner the whole way.",
        "That must have felt empowering.",
        "What did {B} carry at the parade?",
        "When did {B} go to the pride parade?",
    ),
    (
        "event",
        "How was your friend's wedding?",
        "It was on a vineyard; I gave a speech and somehow didn't cry until the end.",
        "Speeches are so nerve-wracking.",
        "Where was the wedding {B} attended?",
        "",
    ),
    (
        "event",
        "Did you make it to the charity run?",
        "We raised eight hundred dollars for the children's hospital with our team.",
        "What a great cause.",
        "How much money did {B}'s team raise?",
        "When did {B} do the charity run?",
    ),
]

SMALL_TALK = [
    "What did it look like?",
    "How did it make you feel?",
    "That's so cool!",
    "Wow, tell me more.",
    "What made you decide to do that?",
    "How are you doing otherwise?",
    "I know what you mean.",
    "Thanks for sharing that with me.",
    "That sounds really fun.",
    "How was your week?",
    "It's been a busy few days here.",
    "I'm really happy for you.",
    "What are you doing this weekend?",
    "Same here, honestly.",
    "Did you enjoy it?",
    "Haha, that's so you.",
    "What do you think about that?",
    "I can't wait to hear how it goes.",
    "That's a great idea.",
    "How long have you been doing that?",
]
GREETINGS = ["Hey {A}! Good to see you again.", "Hi {A}, how have you been?"]
CLOSINGS = ["Talk soon, take care!", "Bye for now, catch up next week?"]


def _session_date(start: datetime.date, rng: random.Random, count: int) -> list[datetime.datetime]:
    out = []
    day = start
    for _ in range(count):
        day = day + datetime.timedelta(days=rng.randint(9, 24))
        out.append(datetime.datetime(day.year, day.month, day.day, rng.randint(9, 20), 0))
    return out


def _when(moment: datetime.datetime) -> str:
    hour = moment.hour % 12 or 12
    half = "am" if moment.hour < 12 else "pm"
    return f"{moment.day} {moment:%B %Y}, {hour}:{moment.minute:02d} {half}"


def conversation(index: int, rng: random.Random) -> dict[str, object]:
    """One vault's notes and labelled questions."""
    p, q = PAIRS[index % len(PAIRS)]
    dates = _session_date(datetime.date(2023, rng.randint(1, 4), rng.randint(1, 28)), rng, SESSIONS)
    picked = rng.sample(EXCHANGES, TOPICS_PER_CONVERSATION)
    # Which session each exchange is told in (every session gets two, spread at random).
    slots = [s for s in range(SESSIONS) for _ in range(TOPICS_PER_CONVERSATION // SESSIONS)]
    rng.shuffle(slots)
    sessions: list[list[str]] = [[] for _ in range(SESSIONS)]
    told: list[tuple[str, str, int, str, str, str]] = []  # (category, B, session, answer, q, when)
    by_session: dict[int, list[tuple[str, str, str, str, str, str]]] = {}
    for exchange, session in zip(picked, slots, strict=True):
        by_session.setdefault(session, []).append(exchange)
    for s in range(SESSIONS):
        turns = sessions[s]
        opener, other = (p, q) if rng.random() < 0.5 else (q, p)
        turns.append(f"{opener}: {rng.choice(GREETINGS).format(A=other)}")
        turns.append(f"{other}: {rng.choice(SMALL_TALK)}")
        for category, ask, answer, react, question, when in by_session.get(s, []):
            a, b = (p, q) if rng.random() < 0.5 else (q, p)
            turns.append(f"{a}: {ask}")
            turns.append(f"{b}: {answer}")
            turns.append(f"{a}: {react}")
            for _ in range(rng.randint(1, 3)):
                turns.append(f"{rng.choice((a, b))}: {rng.choice(SMALL_TALK)}")
            told.append((category, b, s, f"{b}: {answer}", question, when))
        turns.append(f"{opener}: {rng.choice(CLOSINGS)}")
    notes: dict[str, str] = {}
    for first in range(0, SESSIONS, 2):
        months = sorted({f"{d:%B %Y}" for d in dates[first : first + 2]}, key=lambda m: m)
        body = [f"# {p} and {q}: {' and '.join(months)}", ""]
        for s in range(first, min(first + 2, SESSIONS)):
            body += [f"## Session {s + 1}: {_when(dates[s])}", ""]
            body += [f"- {t}" for t in sessions[s]]
            body.append("")
        notes[f"sessions-{first // 2 + 1:02d}.md"] = "\n".join(body)
    questions: list[dict[str, object]] = []
    for _category, b, _s, fact, question, when in told:
        questions.append({"q": question.format(B=b), "kind": "single", "evidence": [fact]})
        if when:
            questions.append({"q": when.format(B=b), "kind": "time", "evidence": [fact]})
    groups: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for category, b, s, fact, _, _ in told:
        groups.setdefault((category, b), []).append((s, fact))
    for (category, b), facts in sorted(groups.items()):
        if len(facts) < 2:
            continue
        ask_all, topic = CATEGORIES[category]
        questions.append(
            {"q": ask_all.format(B=b), "kind": "multi", "evidence": [f for _, f in facts]}
        )
        # Anchored on the date of one of them: the others are the same topic at other dates.
        s, fact = rng.choice(facts)
        day = dates[s]
        fact_months = {dates[t].strftime("%B %Y") for t, _ in facts}
        anchor = (
            f"in {day:%B %Y}"
            if len([t for t, _ in facts if dates[t].strftime("%B %Y") == f"{day:%B %Y}"]) == 1
            and len(fact_months) > 1
            else f"on {day.day} {day:%B %Y}"
        )
        questions.append(
            {"q": f"What did {b} say about {topic} {anchor}?", "kind": "time", "evidence": [fact]}
        )
    return {"id": f"conv-{index + 1:02d}", "notes": notes, "questions": questions}


def generate(seed: int = SEED) -> dict[str, object]:
    rng = random.Random(seed)
    return {
        "about": "cuecard's conversational recall set, written by "
        f"tools/bench/recall_conversations.py with seed {seed}; one vault per conversation, "
        "one fact per turn.",
        "conversations": [conversation(i, rng) for i in range(CONVERSATIONS)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--check", action="store_true", help="fail if the committed set differs")
    args = parser.parse_args()
    text = json.dumps(generate(args.seed), indent=1, ensure_ascii=False) + "\n"
    if args.check:
        same = OUT.is_file() and OUT.read_text(encoding="utf-8") == text
        print("unchanged" if same else "differs", file=sys.stderr)
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
