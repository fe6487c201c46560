"""A corpus of fake credentials and of placeholders, built when the tests run.

Every credential has the published shape of its service's tokens and random content from a
seeded generator: it is valid in form and no real credential. None is written whole in this
file (a prefix and a generated body are joined at run time), so no scanner of the repository
takes it for a leak. Every line is one line, so that surfaces taking one fact per line see it
whole.
"""

from __future__ import annotations

import base64
import json
import random
import string
from typing import NamedTuple

__all__ = ["CREDENTIALS", "GENERIC", "PLACEHOLDERS", "Credential", "fragments"]

_RNG = random.Random(29)
UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
HEX = DIGITS + "abcdef"
B62 = UPPER + LOWER + DIGITS
B64URL = B62 + "-_"
B64 = B62 + "+/"


def _r(alphabet: str, n: int) -> str:
    """``n`` random characters of ``alphabet``, with a digit and a letter (as a real token)."""
    while True:
        out = "".join(_RNG.choice(alphabet) for _ in range(n))
        has_digit = any(c.isdigit() for c in out) or not set(alphabet) & set(DIGITS)
        has_alpha = any(c.isalpha() for c in out) or not set(alphabet) & set(UPPER + LOWER)
        if has_digit and has_alpha:
            return out


def _b64(raw: str) -> str:
    return base64.b64encode(raw.encode()).decode()


def _b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _uuid() -> str:
    return "-".join(_r(HEX, n) for n in (8, 4, 4, 4, 12))


class Credential(NamedTuple):
    family: str  # the service, or one of GENERIC
    text: str  # the line holding it
    secret: str  # what must never be echoed


def _c(family: str, secret: str, template: str = "{}") -> Credential:
    return Credential(family, template.format(secret), secret)


def _corpus() -> list[Credential]:
    basic = _b64("deploy:" + _r(B62, 18))
    jwt_head = _b64url({"alg": "HS256", "typ": "JWT"})
    jwt_body = _b64url({"sub": _r(DIGITS, 10), "name": "ci", "iat": 1_700_000_000})
    teams = f"{_uuid()}@{_uuid()}/IncomingWebhook/{_r(HEX, 32)}/{_uuid()}"
    return [
        _c("AWS", "AKIA" + _r(UPPER + "234567", 16), "aws_access_key_id = {}"),
        _c("GitHub", "ghp_" + _r(B62, 36), "push with {} from CI"),
        _c("GitHub", "github_pat_" + _r(B62, 22) + "_" + _r(B62, 59)),
        _c("GitLab", "glpat-" + _r(B64URL, 20), "GITLAB_TOKEN={}"),
        _c("Slack", "xoxb-" + _r(DIGITS, 12) + "-" + _r(DIGITS, 13) + "-" + _r(B62, 24)),
        _c(
            "Slack",
            "https://hooks.slack.com/services/T"
            + _r(UPPER + DIGITS, 8)
            + "/B"
            + _r(UPPER + DIGITS, 10)
            + "/"
            + _r(B62, 24),
            "post alerts to {}",
        ),
        _c("Stripe", "sk_live_" + _r(B62, 24), "stripe.api_key = '{}'"),
        _c("Stripe", "whsec_" + _r(B62, 32)),
        _c("Google", "AIza" + _r(B64URL, 35), "maps key {}"),
        _c("Google", "GOCSPX-" + _r(B64URL, 28), "client secret {}"),
        _c("npm", "npm_" + _r(B62, 36), "//registry.npmjs.org/:_authToken={}"),
        _c("OpenAI", "sk-proj-" + _r(B64URL, 48), "OPENAI_API_KEY={}"),
        _c("Anthropic", "sk-ant-api03-" + _r(B64URL, 93) + "AA"),
        _c("Hugging Face", "hf_" + _r(UPPER + LOWER, 34), "HF_TOKEN={}"),
        _c("HashiCorp Vault", "hvs." + _r(B64URL, 91), "VAULT_TOKEN={}"),
        _c("Terraform Cloud", _r(B62, 14) + ".atlasv1." + _r(B64URL, 67)),
        _c("Databricks", "dapi" + _r(HEX, 32), "DATABRICKS_TOKEN={}"),
        _c("Doppler", "dp.pt." + _r(B62, 43)),
        _c("Linear", "lin_api_" + _r(B62, 40)),
        _c("Atlassian", "ATATT3" + _r(B64URL, 186), "jira token {}"),
        _c("Grafana", "glsa_" + _r(B62, 32) + "_" + _r(HEX, 8)),
        _c("Grafana", "glc_" + _r(B64, 60)),
        _c("New Relic", "NRAK-" + _r(UPPER + DIGITS, 27)),
        _c("Sentry", "sntryu_" + _r(HEX, 64), "SENTRY_AUTH_TOKEN={}"),
        _c("age", "AGE-SECRET-KEY-1" + _r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
        _c("Alibaba Cloud", "LTAI" + _r(B62, 20)),
        _c(
            "Azure",
            _r(B64, 86) + "==",
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};"
            "EndpointSuffix=core.windows.net",
        ),
        _c(
            "Azure",
            _r(B64, 43) + "=",
            "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={}",
        ),
        _c("HTTP Basic", basic, 'curl -H "Authorization: Basic {}" https://api.internal'),
        _c("netrc", _r(B62, 16), "machine api.internal.net login deploy password {}"),
        _c(
            "Docker config",
            _b64("ci:" + _r(B62, 20)),
            '{{"auths": {{"reg.internal": {{"auth": "{}"}}}}}}',
        ),
        _c("Redis URL", _r(B62, 20), "redis://:{}@cache.internal:6379/0"),
        _c("PostgreSQL URL", _r(B62, 16), "postgresql://app:{}@db.internal:5432/app"),
        _c("Mailgun", "key-" + _r(HEX, 32)),
        _c("DigitalOcean", "dop_v1_" + _r(HEX, 64)),
        _c("Shopify", "shpat_" + _r(HEX, 32)),
        _c("Twilio", "SK" + _r(HEX, 32), "twilio api key {}"),
        _c("SendGrid", "SG." + _r(B64URL, 22) + "." + _r(B64URL, 43)),
        _c("PyPI", "pypi-AgEIcHlwaS5vcmc" + _r(B64URL, 120), "password = {}"),
        _c("Discord", "MT" + _r(B62, 22) + "." + _r(B62, 6) + "." + _r(B64URL, 27)),
        _c(
            "Discord",
            "https://discord.com/api/webhooks/" + _r(DIGITS, 18) + "/" + _r(B64URL, 68),
        ),
        _c("Telegram", _r(DIGITS, 10) + ":AA" + _r(B64URL, 33), "bot token {}"),
        _c("Square", "EAAA" + _r(B64URL, 60)),
        _c("Square", "sq0csp-" + _r(B64URL, 43)),
        _c("Mailchimp", _r(HEX, 32) + "-us14", "mailchimp key {}"),
        _c("JSON Web Token", f"{jwt_head}.{jwt_body}.{_r(B64URL, 43)}", "session {}"),
        _c("private key", "-----BEGIN OPENSSH PRIVATE KEY----- " + _r(B64, 70)),
        _c("Heroku", "HRKU-AA" + _r(B64URL, 58)),
        _c("Postman", "PMAK-" + _r(HEX, 24) + "-" + _r(HEX, 34)),
        _c("Pulumi", "pul-" + _r(HEX, 40)),
        _c("Supabase", "sbp_" + _r(HEX, 40)),
        _c("Netlify", "nfp_" + _r(B62, 36)),
        _c("Notion", "ntn_" + _r(B62, 46)),
        _c("Airtable", "pat" + _r(B62, 14) + "." + _r(HEX, 64)),
        _c("Figma", "figd_" + _r(B64URL, 40)),
        _c("Dynatrace", "dt0c01." + _r(UPPER + DIGITS, 24) + "." + _r(UPPER + DIGITS, 64)),
        _c("Mapbox", "sk.eyJ" + _r(B64URL, 60) + "." + _r(B64URL, 22)),
        _c("PlanetScale", "pscale_tkn_" + _r(B64URL, 43)),
        _c("RubyGems", "rubygems_" + _r(HEX, 48)),
        _c("Clojars", "CLOJARS_" + _r(LOWER + DIGITS, 60)),
        _c("Docker Hub", "dckr_pat_" + _r(B64URL, 27)),
        _c("Buildkite", "bkua_" + _r(HEX, 40)),
        _c("Tailscale", "tskey-auth-k" + _r(B62, 10) + "CNTRL-" + _r(B62, 32)),
        _c("1Password", "ops_eyJ" + _r(B64, 300)),
        _c("Groq", "gsk_" + _r(B62, 52)),
        _c("Replicate", "r8_" + _r(B62, 37)),
        _c("Perplexity", "pplx-" + _r(B62, 48)),
        _c("xAI", "xai-" + _r(B62, 80)),
        _c("Contentful", "CFPAT-" + _r(B64URL, 43)),
        _c("Sourcegraph", "sgp_" + _r(HEX, 40)),
        _c("Fly.io", "fm2_" + _r(B64, 80), "FLY_API_TOKEN=FlyV1 {}"),
        _c("Braintree", "access_token$production$" + _r(LOWER + DIGITS, 16) + "$" + _r(HEX, 32)),
        _c("Flutterwave", "FLWSECK-" + _r("abcdefgh" + DIGITS, 32) + "-X"),
        _c("Artifactory", "AKCp" + _r(B62, 69), "artifactory {} "),
        _c("Prefect", "pnu_" + _r(B62, 36)),
        _c("ReadMe", "rdme_" + _r(LOWER + DIGITS, 70)),
        _c("Octopus Deploy", "API-" + _r(UPPER + DIGITS, 26)),
        _c("Microsoft Teams webhook", "https://acme.webhook.office.com/webhookb2/" + teams),
        _c("Render", "rnd_" + _r(B62, 32)),
        _c("EasyPost", "EZAK" + _r(B62, 54)),
        _c("Plaid", "access-production-" + _uuid()),
        _c("Deno Deploy", "ddp_" + _r(B62, 36)),
        _c("Adafruit IO", "aio_" + _r(B62, 28)),
        _c("Shippo", "shippo_live_" + _r(HEX, 40)),
        _c("Typeform", "tfp_" + _r(B64URL, 59)),
        _c("Frame.io", "fio-u-" + _r(B64URL, 64)),
        _c("IBM Cloud", _r(B64URL, 44), "ibm_cloud_iam_api_key = '{}'"),
        _c("SoftLayer", _r(LOWER + DIGITS, 64), "softlayer_api_key = {}"),
        _c("labelled password", _r(B62, 14), 'export DB_PASSWORD="{}"'),
        _c("bearer token", _r(B64URL, 40), "Authorization: Bearer {}"),
        _c("hexadecimal secret", _r(HEX, 48), "webhook signing key {}"),
    ]


CREDENTIALS: list[Credential] = _corpus()
# Shapes no one service owns.
GENERIC = frozenset(
    {
        "HTTP Basic", "netrc", "Docker config", "Redis URL", "PostgreSQL URL", "JSON Web Token",
        "private key", "labelled password", "bearer token", "hexadecimal secret",
    }
)  # fmt: skip

_X = "x"
PLACEHOLDERS: list[str] = [
    "api_key = os.environ['API_KEY']",
    'token = os.getenv("GITHUB_TOKEN")',
    "const key = process.env.OPENAI_API_KEY",
    "api_key: ${API_KEY}",
    "password: $DB_PASSWORD",
    "API_KEY=YOUR_API_KEY",
    'api_key = "<your-api-key>"',
    "token: your-token-here",
    "GITHUB_TOKEN=ghp_" + _X * 36,
    "aws_access_key_id = AKIAIOSFODNN7" + "EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    "export OPENAI_API_KEY=sk-" + _X * 48,
    "STRIPE_SECRET_KEY=sk_test_" + _X * 24,
    "password: changeme",
    'secret: "********"',
    "token: {{ secrets.DEPLOY_TOKEN }}",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "password=%DB_PASSWORD%",
    "postgres://app:${DB_PASSWORD}@db.internal:5432/app",
    "postgres://app:<password>@localhost:5432/app",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    "HF_TOKEN=hf_" + _X * 34,
    "NPM_TOKEN=npm_" + "X" * 36,
    "GITLAB_TOKEN=glpat-" + _X * 20,
    "SLACK_BOT_TOKEN=xoxb-" + "0" * 12 + "-" + "0" * 13 + "-" + _X * 24,
    "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T"
    + "X" * 8
    + "/B"
    + "X" * 8
    + "/"
    + "X" * 24,
    "api_key = get_api_key()",
    'token = config["token"]',
    "SECRET_KEY = settings.SECRET_KEY",
    "password: null",
    'api_key = "REPLACE_ME"',
    "client_secret: dummy_value",
    'token = "' + _X * 20 + '"',
    "Authorization: Basic <base64-credentials>",
    "DOPPLER_TOKEN=dp.st." + _X * 40,
]


def fragments(credential: Credential) -> list[str]:
    """Pieces of a credential that must appear nowhere: the whole and its distinctive tail."""
    secret = credential.secret
    return [secret, secret[-12:]]
