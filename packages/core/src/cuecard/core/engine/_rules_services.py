"""Credential rules for the services detect-secrets has no plugin for, and a few it misses.

Each rule is written from the token format the service publishes, and names that page. Where a
value is the credential inside a longer shape (a URL, a header), the rule's first group holds it:
that part is what a refusal tests for a placeholder and what redaction replaces.
"""

# ruff: noqa: E501 (a source is one address)

# (credential name, pattern, ignore case)
RULES: tuple[tuple[str, str, bool], ...] = (
    # https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9_]{20,}|github_pat_[A-Za-z0-9_]{20,})", False),
    # https://docs.gitlab.com/ee/security/tokens/#token-prefixes
    (
        "GitLab token",
        r"\bgl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas|ffct|wt)-[A-Za-z0-9_-]{20,}",
        False,
    ),
    # https://api.slack.com/authentication/token-types
    ("Slack token", r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})", False),
    # https://api.slack.com/messaging/webhooks (the URL is the credential)
    (
        "Slack webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
        False,
    ),
    # https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids
    ("AWS access key", r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b", False),
    # https://docs.stripe.com/keys (secret, restricted and webhook signing keys)
    ("Stripe key", r"\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})", False),
    # https://cloud.google.com/docs/authentication/api-keys
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}", False),
    # https://developers.google.com/identity/protocols/oauth2 (client secrets begin GOCSPX-)
    ("Google OAuth client secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}", False),
    # https://docs.npmjs.com/about-access-tokens
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b", False),
    # https://docs.anthropic.com/en/api/getting-started; https://platform.openai.com/docs/api-reference/authentication;
    # https://openrouter.ai/docs/api-reference/authentication: keys that begin sk-
    ("API key (sk-)", r"\bsk-[A-Za-z0-9_-]{12,}", False),
    # https://huggingface.co/docs/hub/security-tokens
    ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}\b", False),
    # https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes
    ("HashiCorp Vault token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", False),
    # https://developer.hashicorp.com/terraform/cloud-docs/users-teams-organizations/api-tokens
    ("Terraform Cloud token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}", False),
    # https://docs.databricks.com/en/dev-tools/auth/pat.html
    ("Databricks token", r"\bdapi[0-9a-f]{32}(?:-\d+)?\b", False),
    # https://docs.doppler.com/docs/token-formats
    (
        "Doppler token",
        r"\bdp\.(?:st|sa|ct|pt|scim|audit)\.(?:[A-Za-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}\b",
        False,
    ),
    # https://linear.app/developers/graphql#personal-api-keys
    ("Linear API key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b", False),
    # https://support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account/
    ("Atlassian API token", r"\bATATT3[A-Za-z0-9_=-]{150,}", False),
    # https://grafana.com/docs/grafana/latest/administration/service-accounts/;
    # https://grafana.com/docs/grafana-cloud/account-management/authentication-and-permissions/access-policies/
    (
        "Grafana token",
        r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})",
        False,
    ),
    # https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/
    ("New Relic key", r"\b(?:NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9_-]{32}|NRJS-[a-f0-9]{19})\b", False),
    # https://docs.sentry.io/account/auth-tokens/
    ("Sentry token", r"\b(?:sntrys_[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64})", False),
    # https://age-encryption.org/v1 (Bech32, human-readable part AGE-SECRET-KEY-)
    ("age secret key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", False),
    # https://www.alibabacloud.com/help/en/ram/user-guide/create-an-accesskey-pair
    ("Alibaba Cloud AccessKey", r"\bLTAI[A-Za-z0-9]{12,20}\b", False),
    # https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string;
    # https://learn.microsoft.com/en-us/azure/service-bus-messaging/service-bus-sas
    (
        "Azure connection string key",
        r"\b(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,}={0,2})",
        False,
    ),
    # https://www.rfc-editor.org/rfc/rfc7617 (the Basic scheme's credentials are base64 user:password)
    (
        "Basic authorization",
        r"\bauthorization[\"']?\s*[:=]\s*[\"']?basic\s+([A-Za-z0-9+/]{8,}={0,2})",
        True,
    ),
    # https://www.gnu.org/software/inetutils/manual/html_node/The-_002enetrc-file.html
    ("netrc password", r"\bmachine\s+\S+\s+login\s+\S+\s+password\s+([^\s\"']{3,})", False),
    # https://docs.docker.com/reference/cli/docker/login/ (config.json "auth": base64 user:password)
    ("registry auth", r"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{12,}={0,2})\"", False),
    # https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1 (userinfo; an empty user as in redis://:pw@host)
    ("URL with a password", r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s@/]{3,})@[^\s]+", True),
    # https://documentation.mailgun.com/docs/mailgun/api-reference/authentication/
    ("Mailgun key", r"\bkey-[0-9a-f]{32}\b", False),
    # https://docs.digitalocean.com/reference/api/create-personal-access-token/
    ("DigitalOcean token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", False),
    # https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens
    ("Shopify token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", False),
    # https://discord.com/developers/docs/resources/webhook (the URL is the credential)
    (
        "Discord webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{40,}",
        False,
    ),
    # https://developer.squareup.com/docs/build-basics/access-tokens
    ("Square token", r"\b(?:EAAA[A-Za-z0-9_-]{60}|sq0atp-[A-Za-z0-9_-]{22})\b", False),
    # https://devcenter.heroku.com/articles/authentication (API keys begin HRKU-)
    ("Heroku API key", r"\bHRKU-[A-Za-z0-9_-]{58,}", False),
    # https://learning.postman.com/docs/developer/postman-api/authentication/
    ("Postman API key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", False),
    # https://www.pulumi.com/docs/pulumi-cloud/access-management/access-tokens/
    ("Pulumi token", r"\bpul-[a-f0-9]{40}\b", False),
    # https://supabase.com/docs/guides/api/api-keys
    ("Supabase key", r"\b(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})", False),
    # https://docs.netlify.com/api/get-started/#authentication
    ("Netlify token", r"\bnfp_[A-Za-z0-9]{36}\b", False),
    # https://developers.notion.com/docs/authorization
    ("Notion token", r"\b(?:ntn_[A-Za-z0-9]{40,50}|secret_[A-Za-z0-9]{43})\b", False),
    # https://airtable.com/developers/web/guides/personal-access-tokens
    ("Airtable token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", False),
    # https://www.figma.com/developers/api#access-tokens
    ("Figma token", r"\bfig[dou]_[A-Za-z0-9_-]{40,}", False),
    # https://docs.dynatrace.com/docs/manage/identity-access-management/access-tokens-and-oauth-clients/access-tokens#token-format
    ("Dynatrace token", r"\bdt0[a-z]\d{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b", False),
    # https://docs.mapbox.com/accounts/guides/tokens/ (secret tokens begin sk.)
    ("Mapbox secret token", r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}", False),
    # https://planetscale.com/docs/concepts/service-tokens
    ("PlanetScale token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}", False),
    # https://guides.rubygems.org/api-key-scopes/
    ("RubyGems key", r"\brubygems_[a-f0-9]{48}\b", False),
    # https://github.com/clojars/clojars-web/wiki/Deploy-Tokens
    ("Clojars token", r"\bCLOJARS_[a-z0-9]{60}\b", False),
    # https://docs.docker.com/security/for-developers/access-tokens/
    ("Docker Hub token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}", False),
    # https://buildkite.com/docs/apis/managing-api-tokens
    ("Buildkite token", r"\bbkua_[a-f0-9]{40}\b", False),
    # https://tailscale.com/kb/1085/auth-keys
    (
        "Tailscale key",
        r"\btskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9]+-[A-Za-z0-9]{20,}",
        False,
    ),
    # https://developer.1password.com/docs/service-accounts/
    ("1Password service account token", r"\bops_eyJ[A-Za-z0-9+/]{100,}={0,3}", False),
    # https://console.groq.com/docs/api-keys
    ("Groq API key", r"\bgsk_[A-Za-z0-9]{52}\b", False),
    # https://replicate.com/docs/topics/security/api-tokens
    ("Replicate token", r"\br8_[A-Za-z0-9]{37}\b", False),
    # https://docs.perplexity.ai/guides/getting-started
    ("Perplexity API key", r"\bpplx-[A-Za-z0-9]{48}\b", False),
    # https://docs.x.ai/docs/overview
    ("xAI API key", r"\bxai-[A-Za-z0-9]{80}\b", False),
    # https://www.contentful.com/developers/docs/references/authentication/
    ("Contentful token", r"\bCFPAT-[A-Za-z0-9_-]{43}", False),
    # https://docs.goshippo.com/docs/guides_general/authentication/
    ("Shippo token", r"\bshippo_(?:live|test)_[a-f0-9]{40}\b", False),
    # https://sourcegraph.com/docs/cli/how-tos/creating_an_access_token
    ("Sourcegraph token", r"\bsgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}\b", False),
    # https://docs.deno.com/deploy/manual/api/
    ("Deno Deploy token", r"\bdd[pw]_[A-Za-z0-9]{36}\b", False),
    # https://fly.io/docs/security/tokens/
    ("Fly.io token", r"\bFlyV1\s+(fm[12][ar]?_[A-Za-z0-9+/=_,-]{50,})", False),
    # https://io.adafruit.com/api/docs/#authentication
    ("Adafruit IO key", r"\baio_[A-Za-z0-9]{28}\b", False),
    # https://developer.paypal.com/braintree/docs/guides/authorization/access-token
    ("Braintree token", r"access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}", False),
    # https://developer.flutterwave.com/docs/authentication
    ("Flutterwave key", r"\bFLWSECK(?:_TEST)?-[a-h0-9]{32}-X\b", False),
    # https://developer.frame.io/docs/getting-started/authentication
    ("Frame.io token", r"\bfio-u-[A-Za-z0-9_=-]{64}", False),
    # https://docs.prefect.io/v3/manage/cloud/manage-users/api-keys
    ("Prefect API key", r"\bpnu_[A-Za-z0-9]{36}\b", False),
    # https://docs.readme.com/main/reference/intro/authentication
    ("ReadMe API key", r"\brdme_[a-z0-9]{70}\b", False),
    # https://octopus.com/docs/octopus-rest-api/how-to-create-an-api-key
    ("Octopus Deploy API key", r"\bAPI-[A-Z0-9]{26,32}\b", False),
    # https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook
    (
        "Microsoft Teams webhook",
        r"https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/_-]{60,}",
        False,
    ),
    # https://render.com/docs/api#1-create-an-api-key
    ("Render API key", r"\brnd_[A-Za-z0-9]{32}\b", False),
    # https://www.typeform.com/developers/get-started/personal-access-token/
    ("Typeform token", r"\btfp_[A-Za-z0-9_.=-]{59}", False),
    # https://docs.easypost.com/docs/authentication
    ("EasyPost API key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", False),
    # https://plaid.com/docs/api/items/ (access tokens name their environment)
    (
        "Plaid access token",
        r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        False,
    ),
    # https://www.rfc-editor.org/rfc/rfc7519 (three base64url parts; a header starts eyJ)
    (
        "JSON Web Token",
        r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
        False,
    ),
    # https://www.rfc-editor.org/rfc/rfc6750 (a bearer token; one with a digit, not prose)
    ("bearer token", r"\bBearer\s+((?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{20,}=*)", True),
)
