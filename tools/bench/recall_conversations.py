"""Generate the conversational recall set (deterministic): multi-session dialogues, one fact a turn.

Writes tools/bench/recall_conversation_set.json, read by tools/bench/recall_quality.py. Each
conversation is one vault: two people talk over eight sessions; a note holds two sessions (``#``
the pair and the months, ``##`` the session's number, date and time), one fact line per turn
(``Name: what they said``). What they say is drawn from hand-written exchanges (a question, the
answer, a reaction) mixed with small talk, with the names, dates and order drawn from a seeded
generator, so the same seed always writes the same file.

Two splits of ten conversations each: ``dev`` (the exchanges below; tune on it) and ``heldout``
(other people, other exchanges and other phrasings, from a generator of its own seed; report
it, never tune on it).

Questions are phrased as a person asks them and labelled with their evidence turns (the exact
fact lines), in four kinds:

- ``single``: one fact answers it (often the reply just after the question that names the
  topic, with the words inflected differently from the question);
- ``multi``: two or more facts of one person on one topic, in different sessions;
- ``time``: anchored on a session's date ("... on 8 May 2023", "... in June 2023") among facts
  of the same person on the same topic at other dates, or asking when something happened;
- ``open``: open-domain, what a turn implies rather than says ("Is Melanie musical?" answered
  by the turn about her guitar lessons), in other words than the turn's.

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
HELDOUT_OFFSET = 1  # the held-out split's generator is seeded with SEED + this

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
        "Does {B} spend a lot of time outdoors?",
    ),
    (
        "pet",
        "Did you end up getting that puppy?",
        "Yes! We adopted a beagle from the shelter and named him Biscuit.",
        "Biscuit is such a cute name!",
        "What is the name of {B}'s dog?",
        "When did {B} adopt the beagle?",
        "Would {B} be a good person to ask about rescuing an animal?",
    ),
    (
        "pet",
        "How is your cat doing these days?",
        "Luna had surgery on her paw, but the vet says she is recovering well.",
        "Poor thing, I hope she heals fast.",
        "What happened to {B}'s cat?",
        "When did {B}'s cat have an operation?",
        "Has {B} had to spend money on vet bills recently?",
    ),
    (
        "pet",
        "Are you still thinking about getting fish?",
        "I set up a small aquarium with three guppies and a snail in the living room.",
        "That must be relaxing to watch.",
        "What fish does {B} keep?",
        "",
        "Would {B} enjoy a gift for an aquarium?",
    ),
    (
        "trip",
        "Where did you go over the long weekend?",
        "We drove up the coast to Big Sur and camped two nights under the redwoods.",
        "I've always wanted to see those trees.",
        "Where did {B} go camping?",
        "When did {B} camp at Big Sur?",
        "Does {B} like sleeping in a tent?",
    ),
    (
        "trip",
        "How was the flight to Japan?",
        "Long, but worth it: Kyoto's temples in the autumn were the highlight of the whole year.",
        "I'm so jealous, that sounds magical.",
        "Which Japanese city did {B} enjoy most?",
        "When did {B} visit Kyoto?",
        "Would {B} recommend visiting Asia?",
    ),
    (
        "trip",
        "Did you manage to visit your grandmother?",
        "I took the train to Lisbon and stayed with her for a week by the sea.",
        "She must have loved having you there.",
        "Where does {B}'s grandmother live?",
        "",
        "Is {B} close to an elderly relative abroad?",
    ),
    (
        "trip",
        "What was the best part of the road trip?",
        "Hiking to the top of Angels Landing in Zion; my legs ached for days afterwards.",
        "That trail looks terrifying in photos!",
        "Which hike did {B} do in Zion?",
        "When did {B} hike Angels Landing?",
        "Is {B} fit enough for steep mountain trails?",
    ),
    (
        "hobby",
        "What have you been up to lately?",
        "I signed up for pottery classes on Saturday mornings; I made my first bowl last week.",
        "You'll have to show me the bowl!",
        "What class is {B} taking on weekends?",
        "When did {B} start pottery?",
        "Would {B} like a set of ceramic glazes as a present?",
    ),
    (
        "hobby",
        "Are you still painting?",
        "Mostly watercolours of sunsets now; I'm preparing three of them for a local exhibition.",
        "I'd love to come to the exhibition.",
        "What does {B} like to paint?",
        "",
        "Could {B}'s artwork be seen in a gallery soon?",
    ),
    (
        "hobby",
        "How are the guitar lessons going?",
        "I finally learned to play Blackbird all the way through without stopping.",
        "That's a hard song to learn!",
        "Which song did {B} learn on guitar?",
        "",
        "Is {B} musical?",
    ),
    (
        "hobby",
        "Did you plant anything new this spring?",
        "Tomatoes, basil and a row of sunflowers along the fence; the garden is overflowing.",
        "Fresh tomatoes are the best.",
        "What is {B} growing in the garden?",
        "",
        "Does {B} have a green thumb?",
    ),
    (
        "work",
        "How's the new job treating you?",
        "I was promoted to team lead, so now I'm managing four engineers.",
        "Congratulations, you deserve it!",
        "How many people does {B} manage?",
        "When did {B} become a team lead?",
        "Has {B}'s career been going well?",
    ),
    (
        "work",
        "Any news from the office?",
        "We're migrating everything to the cloud, and I'm researching which provider to choose.",
        "That sounds like a big project.",
        "What is {B} researching at work?",
        "",
        "Is {B} involved in a technology project at the office?",
    ),
    (
        "work",
        "Are you still thinking about a career change?",
        "I enrolled in a counselling course because I want to support trans youth.",
        "That's such a meaningful path.",
        "What career is {B} pursuing?",
        "When did {B} enrol in the counselling course?",
        "Would {B} make a good therapist?",
    ),
    (
        "work",
        "How did the presentation go?",
        "The investors loved the demo and agreed to fund the next two years of the startup.",
        "Wow, that's huge news!",
        "What did the investors decide about {B}'s startup?",
        "",
        "Is {B} an entrepreneur?",
    ),
    (
        "family",
        "How are your kids?",
        "My daughter just turned seven and wants to become an astronaut.",
        "Kids have the best dreams.",
        "How old is {B}'s daughter?",
        "",
        "Is {B} a parent?",
    ),
    (
        "family",
        "Is your brother still abroad?",
        "He moved back from Berlin and is staying with us until he finds a flat.",
        "It must be nice to have him close again.",
        "Where did {B}'s brother live before?",
        "",
        "Does {B} have a sibling who lived in Germany?",
    ),
    (
        "family",
        "How was your parents' anniversary?",
        "We threw them a surprise party for their fortieth anniversary; Mum cried happy tears.",
        "That's so sweet.",
        "Which anniversary did {B}'s parents celebrate?",
        "When did {B} throw the surprise party?",
        "Is {B} good at planning celebrations?",
    ),
    (
        "family",
        "Did your sister have the baby?",
        "Yes, a little boy called Theo; I'm an aunt for the first time!",
        "Congratulations, Auntie!",
        "What is the name of {B}'s nephew?",
        "When was {B}'s nephew born?",
        "Did {B}'s family grow recently?",
    ),
    (
        "food",
        "What did you make for dinner last night?",
        "I cooked a big pot of lentil curry with coconut milk; it lasted us three days.",
        "Yum, send me the recipe.",
        "What curry did {B} cook?",
        "",
        "Does {B} enjoy Indian-style food?",
    ),
    (
        "food",
        "Have you been baking again?",
        "I baked sourdough every weekend this month; the starter is called Doughy.",
        "Ha, I love that name.",
        "What bread does {B} bake?",
        "",
        "Would {B} be interested in a fermentation workshop?",
    ),
    (
        "food",
        "What was the best thing you ate on holiday?",
        "Grilled sardines at a tiny harbour restaurant, with bread and green wine.",
        "Now I'm hungry.",
        "What was {B}'s favourite meal on holiday?",
        "",
        "Does {B} like seafood?",
    ),
    (
        "food",
        "Did you try the new vegan place?",
        "We had the mushroom burgers there; honestly better than most beef ones.",
        "I'll have to go then.",
        "What did {B} order at the vegan restaurant?",
        "",
        "Would {B} eat a plant-based meal?",
    ),
    (
        "book",
        "Read anything good lately?",
        "I finished Becoming by Michelle Obama; her story about growing up in Chicago moved me.",
        "I've heard great things about that book.",
        "Which memoir did {B} finish?",
        "",
        "Is {B} interested in biographies of public figures?",
    ),
    (
        "book",
        "What's on your nightstand right now?",
        "A collection of Mary Oliver's poems; I read one every night before sleeping.",
        "That's a beautiful habit.",
        "Whose poetry does {B} read before bed?",
        "",
        "Does {B} enjoy verse?",
    ),
    (
        "book",
        "Is the book club still going?",
        "We're discussing Dune this month, and I'm the one hosting the meeting.",
        "Dune is a classic.",
        "Which novel is {B}'s book club discussing?",
        "When did {B} host the book club?",
        "Does {B} like science fiction?",
    ),
    (
        "book",
        "Do you still listen to audiobooks on your commute?",
        "Right now it's Project Hail Mary; I keep laughing out loud on the bus.",
        "People must think you're crazy.",
        "Which audiobook makes {B} laugh?",
        "",
        "Does {B} use public transport to get to work?",
    ),
    (
        "sport",
        "Are you still running?",
        "I ran my first half marathon in two hours and five minutes!",
        "That's an amazing time.",
        "How fast did {B} finish the half marathon?",
        "When did {B} run a half marathon?",
        "Is {B} a long-distance runner?",
    ),
    (
        "sport",
        "How's the swimming going?",
        "I swim at the community pool three mornings a week before work.",
        "That's dedication.",
        "How often does {B} go swimming?",
        "",
        "Is {B} an early riser?",
    ),
    (
        "sport",
        "Did you join that climbing gym?",
        "I did, and I managed my first overhang route on Thursday.",
        "Your arms must be sore.",
        "What did {B} manage at the climbing gym?",
        "",
        "Is {B} getting stronger at bouldering?",
    ),
    (
        "sport",
        "Are you playing in the tennis league this year?",
        "Yes, my doubles partner and I won the club tournament last weekend.",
        "Champions!",
        "What tournament did {B} win?",
        "When did {B} win the tennis tournament?",
        "Is {B} competitive at racket sports?",
    ),
    (
        "event",
        "How was the concert?",
        "Seeing Coldplay live in the stadium was incredible; we sang along to every song.",
        "I'm so glad you got tickets.",
        "Which band did {B} see in concert?",
        "When did {B} see Coldplay?",
        "Does {B} like British rock music?",
    ),
    (
        "event",
        "Did you go to the pride parade?",
        "I marched with the support group and carried our rainbow banner the whole way.",
        "That must have felt empowering.",
        "What did {B} carry at the parade?",
        "When did {B} go to the pride parade?",
        "Is {B} an LGBTQ ally?",
    ),
    (
        "event",
        "How was your friend's wedding?",
        "It was on a vineyard; I gave a speech and somehow didn't cry until the end.",
        "Speeches are so nerve-wracking.",
        "Where was the wedding {B} attended?",
        "",
        "Is {B} comfortable with public speaking?",
    ),
    (
        "event",
        "Did you make it to the charity run?",
        "We raised eight hundred dollars for the children's hospital with our team.",
        "What a great cause.",
        "How much money did {B}'s team raise?",
        "When did {B} do the charity run?",
        "Does {B} volunteer for good causes?",
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

# The held-out split: other people, other exchanges, other phrasings of the questions about a
# topic. Nothing in it was read while ranking was tuned (the dev split above is for that).
HELDOUT_PAIRS = [
    ("Olivia", "Marcus"),
    ("Rosa", "Kenji"),
    ("Ingrid", "Tomas"),
    ("Fatima", "Leo"),
    ("Grace", "Omar"),
    ("Nadia", "Felix"),
    ("Chloe", "Ravi"),
    ("Elena", "Bruno"),
    ("Yuki", "Sven"),
    ("Amara", "Declan"),
]

HELDOUT_CATEGORIES = {
    "pet": ("Tell me about the animals {B} looks after.", "animals"),
    "trip": ("Which places has {B} visited?", "travelling"),
    "hobby": ("What does {B} do in their free time?", "free time"),
    "work": ("How has {B}'s job been going?", "the job"),
    "family": ("What news has {B} shared about relatives?", "relatives"),
    "food": ("What has {B} been eating or making in the kitchen?", "food"),
    "book": ("What has {B} read recently?", "books"),
    "sport": ("How does {B} keep fit?", "exercise"),
    "event": ("Which gatherings has {B} been to?", "going out"),
}

HELDOUT_EXCHANGES = [
    (
        "pet",
        "How is the new kitten settling in?",
        "She hides under the sofa all day, then chases my socks at three in the morning.",
        "Classic kitten behaviour.",
        "Where does {B}'s kitten hide during the day?",
        "When did {B} mention the kitten chasing socks?",
        "Is {B} getting enough sleep at night?",
    ),
    (
        "pet",
        "Did the parrot learn any new words?",
        "Pepper now says hello whenever the doorbell rings, and whistles the radio jingle.",
        "That's hilarious.",
        "What does {B}'s parrot say when the doorbell rings?",
        "",
        "Does {B} own a talking bird?",
    ),
    (
        "pet",
        "How was the horse riding?",
        "I'm leasing a grey mare called Willow and ride her at the stables every Sunday.",
        "Sundays with a horse sound perfect.",
        "What is the name of the mare {B} rides?",
        "When did {B} start leasing the mare?",
        "Does {B} spend weekends in the countryside?",
    ),
    (
        "pet",
        "Are you fostering dogs again?",
        "We took in two greyhounds retired from racing until a family adopts them.",
        "You have such a big heart.",
        "What kind of dogs is {B} fostering?",
        "",
        "Does {B} care about animal welfare?",
    ),
    (
        "trip",
        "How was Iceland?",
        "We soaked in a hot spring at midnight and saw the northern lights over the glacier.",
        "That's a bucket-list moment.",
        "What did {B} see over the glacier?",
        "When did {B} see the northern lights?",
        "Does {B} enjoy cold-weather destinations?",
    ),
    (
        "trip",
        "Where did you go for the honeymoon?",
        "Two weeks island hopping in Greece; Santorini's sunsets were unreal.",
        "Congratulations again to you both!",
        "Where did {B} spend the honeymoon?",
        "When did {B} go to Santorini?",
        "Is {B} married?",
    ),
    (
        "trip",
        "Did the work trip to New York go well?",
        "Meetings all day, but I squeezed in a jazz club in Harlem on the last night.",
        "At least you got some fun in.",
        "What did {B} do on the last night in New York?",
        "",
        "Does {B} like live music?",
    ),
    (
        "trip",
        "How was the cycling holiday?",
        "We rode along the Danube from Passau to Vienna, about fifty kilometres a day.",
        "Your legs must be made of steel.",
        "Which river did {B} cycle along?",
        "When did {B} ride to Vienna?",
        "Could {B} manage a long bike tour?",
    ),
    (
        "hobby",
        "Still knitting?",
        "I'm halfway through a striped scarf for my nephew; the yarn is alpaca wool.",
        "He's going to be so cosy.",
        "What is {B} knitting?",
        "",
        "Is {B} good with crafts?",
    ),
    (
        "hobby",
        "How's the photography going?",
        "I bought a second-hand film camera and developed my first roll in the bathroom.",
        "Old school, I love it.",
        "What camera did {B} buy?",
        "When did {B} develop the first roll of film?",
        "Does {B} enjoy analogue technology?",
    ),
    (
        "hobby",
        "Did you finish the puzzle?",
        "All five thousand pieces; it covers the whole dining table, so we eat on the couch.",
        "That's commitment.",
        "How many pieces did {B}'s puzzle have?",
        "",
        "Is {B} a patient person?",
    ),
    (
        "hobby",
        "Are you still in the choir?",
        "Yes, we performed Handel's Messiah at the cathedral and I had a short solo.",
        "I wish I had heard it.",
        "What did {B}'s choir perform?",
        "When did {B} sing a solo?",
        "Can {B} sing well?",
    ),
    (
        "work",
        "How is the teaching going?",
        "My class of thirty fourth graders built a volcano that actually erupted.",
        "Kids must love you.",
        "How many pupils are in {B}'s class?",
        "",
        "Does {B} work in a school?",
    ),
    (
        "work",
        "Did you hear back about the interview?",
        "I got the offer from the hospital: I start as a night-shift nurse next month.",
        "Congratulations, that's wonderful!",
        "What job was {B} offered?",
        "When did {B} get the hospital offer?",
        "Will {B} work unusual hours?",
    ),
    (
        "work",
        "How's the bakery business?",
        "We opened a second shop downtown and hired three new apprentices.",
        "You're building an empire.",
        "How many apprentices did {B} hire?",
        "When did {B} open the second shop?",
        "Is {B} self-employed?",
    ),
    (
        "work",
        "Are you still freelancing?",
        "I designed the logo for a brewery and they printed it on every can.",
        "I'll look out for it!",
        "What did {B} design for the brewery?",
        "",
        "Is {B} a graphic designer?",
    ),
    (
        "family",
        "How is your grandfather?",
        "He turned ninety and still beats everyone at chess after Sunday lunch.",
        "What a sharp mind.",
        "How old is {B}'s grandfather?",
        "When did {B}'s grandfather turn ninety?",
        "Does {B} come from a long-lived family?",
    ),
    (
        "family",
        "Did your son get into university?",
        "He was accepted to study marine biology in Plymouth and leaves in September.",
        "You must be so proud.",
        "What will {B}'s son study?",
        "When did {B}'s son get accepted?",
        "Will {B} have an empty nest soon?",
    ),
    (
        "family",
        "How did the move go for your mum?",
        "She sold the big house and bought a flat near us, so I see her every day now.",
        "That must be a relief.",
        "Where does {B}'s mother live now?",
        "",
        "Does {B} see a parent often?",
    ),
    (
        "family",
        "Are the twins walking yet?",
        "They took their first steps on the same afternoon, holding hands.",
        "That's adorable.",
        "What did {B}'s twins do on the same afternoon?",
        "When did {B}'s twins start walking?",
        "Does {B} have young children?",
    ),
    (
        "food",
        "Did you try making ramen?",
        "I simmered the pork broth for twelve hours; the noodles were homemade too.",
        "That's next-level cooking.",
        "How long did {B} simmer the broth?",
        "",
        "Does {B} enjoy Japanese cuisine?",
    ),
    (
        "food",
        "What did you bring to the potluck?",
        "A lemon tart with meringue on top; it vanished in ten minutes.",
        "I bet it was delicious.",
        "What dessert did {B} bring to the potluck?",
        "",
        "Is {B} good at making sweets?",
    ),
    (
        "food",
        "Are you still doing the vegetable box?",
        "Every Friday a farm delivers kale, beets and squash, so I'm learning soups.",
        "Very healthy.",
        "Which vegetables arrive in {B}'s weekly box?",
        "",
        "Does {B} eat a healthy diet?",
    ),
    (
        "food",
        "How was the cooking class?",
        "We learned to fold dumplings with a chef from Sichuan; mine looked like rocks.",
        "Practice makes perfect.",
        "What did {B} learn to fold?",
        "When did {B} take the dumpling class?",
        "Has {B} had lessons in Chinese cooking?",
    ),
    (
        "book",
        "What are you reading now?",
        "A thriller by Tana French set in Dublin; I stayed up till two to finish it.",
        "Those books are gripping.",
        "Which city is {B}'s thriller set in?",
        "",
        "Does {B} like crime novels?",
    ),
    (
        "book",
        "Did you finish that history book?",
        "Yes, SPQR by Mary Beard, about ancient Rome; it took me the whole winter.",
        "That's a big one.",
        "Which history book did {B} read?",
        "When did {B} finish SPQR?",
        "Is {B} interested in the classical world?",
    ),
    (
        "book",
        "Are you writing again?",
        "I sent my short story to a magazine, and they are publishing it in the spring issue.",
        "You're a published author!",
        "Where will {B}'s short story appear?",
        "When was {B}'s story accepted?",
        "Does {B} want to be a writer?",
    ),
    (
        "book",
        "Any comics worth reading?",
        "I'm rereading Maus; the drawings of the mice still give me chills.",
        "It's a masterpiece.",
        "Which graphic novel is {B} rereading?",
        "",
        "Does {B} read graphic novels about the Holocaust?",
    ),
    (
        "sport",
        "How's the yoga?",
        "I can finally hold a headstand for a full minute without the wall.",
        "Impressive balance!",
        "How long can {B} hold a headstand?",
        "",
        "Is {B} flexible?",
    ),
    (
        "sport",
        "Did you go skiing this year?",
        "A week in the Alps; I tried a black run and fell only twice.",
        "Brave of you.",
        "Which run did {B} try in the Alps?",
        "When did {B} go skiing?",
        "Is {B} comfortable on steep snowy slopes?",
    ),
    (
        "sport",
        "Are you still rowing?",
        "Our crew came second in the regatta, beaten by half a boat length.",
        "So close!",
        "Where did {B}'s crew finish in the regatta?",
        "When did {B} row in the regatta?",
        "Is {B} part of a team on the water?",
    ),
    (
        "sport",
        "How's the football team?",
        "I'm coaching the under-tens on Saturdays; we haven't lost a match since March.",
        "Unbeaten, nice!",
        "Which team does {B} coach?",
        "",
        "Does {B} enjoy working with kids?",
    ),
    (
        "event",
        "How was the film festival?",
        "We watched six films in two days; a Korean drama won the audience award.",
        "Sounds like a marathon.",
        "Which film won the audience award?",
        "When did {B} go to the film festival?",
        "Is {B} a cinema lover?",
    ),
    (
        "event",
        "Did you go to the reunion?",
        "Twenty years since graduation, and my old lab partner flew in from Toronto.",
        "Time flies.",
        "Where did {B}'s lab partner fly in from?",
        "When was {B}'s reunion?",
        "Did {B} go to college about twenty years ago?",
    ),
    (
        "event",
        "How was the protest?",
        "Thousands marched for the climate; I painted a banner with the kids.",
        "Good for you.",
        "What did {B} paint for the march?",
        "When did {B} march for the climate?",
        "Does {B} care about the environment?",
    ),
    (
        "event",
        "Did you enjoy the opera?",
        "La Traviata at the old theatre; the soprano's final aria left the hall silent.",
        "Goosebumps.",
        "Which opera did {B} see?",
        "",
        "Does {B} like classical music?",
    ),
]


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


Exchange = tuple[str, str, str, str, str, str, str]


def conversation(
    index: int,
    rng: random.Random,
    *,
    split: str = "dev",
    pairs: list[tuple[str, str]] = PAIRS,
    exchanges: list[Exchange] = EXCHANGES,
    categories: dict[str, tuple[str, str]] = CATEGORIES,
) -> dict[str, object]:
    """One vault's notes and labelled questions."""
    p, q = pairs[index % len(pairs)]
    dates = _session_date(datetime.date(2023, rng.randint(1, 4), rng.randint(1, 28)), rng, SESSIONS)
    picked = rng.sample(exchanges, TOPICS_PER_CONVERSATION)
    # Which session each exchange is told in (every session gets two, spread at random).
    slots = [s for s in range(SESSIONS) for _ in range(TOPICS_PER_CONVERSATION // SESSIONS)]
    rng.shuffle(slots)
    sessions: list[list[str]] = [[] for _ in range(SESSIONS)]
    # (category, B, session, answer, question, when, open question)
    told: list[tuple[str, str, int, str, str, str, str]] = []
    by_session: dict[int, list[Exchange]] = {}
    for exchange, session in zip(picked, slots, strict=True):
        by_session.setdefault(session, []).append(exchange)
    for s in range(SESSIONS):
        turns = sessions[s]
        opener, other = (p, q) if rng.random() < 0.5 else (q, p)
        turns.append(f"{opener}: {rng.choice(GREETINGS).format(A=other)}")
        turns.append(f"{other}: {rng.choice(SMALL_TALK)}")
        for category, ask, answer, react, question, when, guess in by_session.get(s, []):
            a, b = (p, q) if rng.random() < 0.5 else (q, p)
            turns.append(f"{a}: {ask}")
            turns.append(f"{b}: {answer}")
            turns.append(f"{a}: {react}")
            for _ in range(rng.randint(1, 3)):
                turns.append(f"{rng.choice((a, b))}: {rng.choice(SMALL_TALK)}")
            told.append((category, b, s, f"{b}: {answer}", question, when, guess))
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
    for _category, b, _s, fact, question, when, _ in told:
        questions.append({"q": question.format(B=b), "kind": "single", "evidence": [fact]})
        if when:
            questions.append({"q": when.format(B=b), "kind": "time", "evidence": [fact]})
    groups: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for category, b, s, fact, _, _, _ in told:
        groups.setdefault((category, b), []).append((s, fact))
    for (category, b), facts in sorted(groups.items()):
        if len(facts) < 2:
            continue
        ask_all, topic = categories[category]
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
    # Open-domain: what the conversation implies rather than says, answered by one turn.
    for _category, b, _s, fact, _, _, guess in told:
        questions.append({"q": guess.format(B=b), "kind": "open", "evidence": [fact]})
    number = index + 1 if split == "dev" else CONVERSATIONS + index + 1
    return {"id": f"conv-{number:02d}", "split": split, "notes": notes, "questions": questions}


def generate(seed: int = SEED) -> dict[str, object]:
    rng = random.Random(seed)
    dev = [conversation(i, rng) for i in range(CONVERSATIONS)]
    held = random.Random(seed + HELDOUT_OFFSET)
    heldout = [
        conversation(
            i,
            held,
            split="heldout",
            pairs=HELDOUT_PAIRS,
            exchanges=HELDOUT_EXCHANGES,
            categories=HELDOUT_CATEGORIES,
        )
        for i in range(CONVERSATIONS)
    ]
    return {
        "about": "cuecard's conversational recall set, written by "
        f"tools/bench/recall_conversations.py with seed {seed}; one vault per conversation, "
        "one fact per turn; tune on the dev split, report the held-out one.",
        "conversations": dev + heldout,
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
