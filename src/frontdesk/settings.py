"""Process-wide settings: explicit argument > environment (FRONTDESK_*) > default."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PACKAGE_DIR = Path(__file__).resolve().parent
DEMO_DIR = PACKAGE_DIR / "demo"

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]


class Settings(BaseSettings):
    """Settings of one Frontdesk process.

    Site-specific behaviour lives in the site YAML files (see `frontdesk.sites`);
    these are the knobs of the process that serves them.
    """

    model_config = SettingsConfigDict(
        env_prefix="FRONTDESK_", env_file=None, extra="ignore", populate_by_name=True
    )

    data_dir: Path = Field(
        default=Path(".frontdesk"),
        description="Where the SQLite database, caches and model files live.",
    )
    database_url: str = Field(
        default="",
        description="SQLAlchemy URL of the app store; empty means SQLite in data_dir.",
    )
    redis_url: str = Field(default="", description="Redis URL for locks, limits and caches.")
    redis_prefix: str = Field(default="frontdesk:", description="Prefix of every Redis key.")
    redis_timeout_s: float = Field(
        default=0.5,
        gt=0,
        le=30,
        description="Connect and read timeout of the Redis locks and rate limits; slower "
        "or down, a turn uses this process's locks and limits instead.",
    )
    redis_retry_s: float = Field(
        default=5.0,
        gt=0,
        description="After a Redis failure, how long locks and limits stay per-process "
        "before one request tries Redis again.",
    )
    spool_dir: Path | None = Field(
        default=None,
        description="Where a turn whose store write failed is kept (JSON lines, fsynced) "
        "until it is replayed into the store; empty: `<data_dir>/spool`. Best on another "
        "volume than the database.",
    )
    spool_replay_s: float = Field(
        default=30.0, gt=0, description="How often the dispatcher replays the spool."
    )
    sites_follow_s: float = Field(
        default=5.0,
        ge=0,
        description="How often a process checks whether another worker or replica changed a "
        "site's settings (console save or reload), and serves the change; 0: never.",
    )
    query_cache_ttl_s: int = Field(
        default=7 * 86_400,
        ge=1,
        description="Lifetime of a question's embedding in Redis (shared by replicas).",
    )
    search_cache_size: int = Field(
        default=1024,
        ge=0,
        description="Search results of repeated questions kept per process, per embedding "
        "model (0: off). An ingest or removal makes a site's cached results stale at once.",
    )
    knowledge_url: str = Field(
        default="",
        description="Knowledge index URL when the PostgreSQL store has no pgvector "
        "(empty: SQLite in data_dir).",
    )
    hnsw_ef_search: int = Field(
        default=40,
        ge=1,
        le=1000,
        description="pgvector HNSW ef_search floor (recall vs latency); a search uses at "
        "least the rows it asks for (50 hybrid candidates), 2x / 4x that on a graph of "
        "200k / 600k rows.",
    )
    sites_dir: Path = Field(
        default=DEMO_DIR / "sites",
        description="Folder of site YAML files (one file per site).",
    )
    demo_site: bool = Field(
        default=True,
        description="Also serve the bundled demo site when sites_dir is another folder "
        "(unless that folder has a site with the same id or key). Set false in production.",
    )
    host: str = Field(default="127.0.0.1", description="Interface `frontdesk serve` binds.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `frontdesk serve` binds.")
    workers: int = Field(
        default=1,
        ge=1,
        description="Worker processes `frontdesk serve` runs on its port (more than one "
        "needs FRONTDESK_REDIS_URL: session locks and rate limits are shared there).",
    )
    crawl_processes: int = Field(
        default=1,
        ge=0,
        le=32,
        description="Syncs of web sources started from the admin API or the console run in "
        "their own processes (lower CPU priority, memory returned when they end), at most "
        "this many at once per API process; more wait their turn. One sync per site at a "
        "time. 0 runs them inside the API process (slows visitors' turns; tests only).",
    )
    trusted_proxies: str = Field(
        default="",
        description="Comma-separated IPs or CIDR networks of the reverse proxies / load "
        "balancers in front of `frontdesk serve` (e.g. 10.0.0.0/8,127.0.0.1), or `*`. Only "
        "a request from one of them may name the client in X-Forwarded-For / "
        "X-Forwarded-Proto; empty (default): trust none, the client is the TCP peer.",
    )
    engine: Literal["local", "llm"] = Field(
        default="local", description="Default engine for sites that do not choose one."
    )
    llm_fast: str = Field(default="", description="Fast-role model (provider:model) for llm sites.")
    llm_main: str = Field(default="", description="Main (writer) model for llm sites.")
    llm_judge: str = Field(default="", description="Judge (evaluation) model for llm sites.")
    llm_fallback: str = Field(default="", description="Fallback model for every role.")
    llm_base_url: str = Field(default="", description="OpenAI-compatible endpoint for llm sites.")
    llm_timeout_s: float = Field(default=30.0, gt=0, description="Per-call LLM timeout.")
    llm_max_retries: int = Field(default=2, ge=0, le=10, description="Retries per LLM call.")
    llm_stream_timeout_ms: int = Field(
        default=8000,
        ge=1,
        validation_alias=AliasChoices("FRONTDESK_LLM_STREAM_TIMEOUT_MS", "LLM_STREAM_TIMEOUT_MS"),
        description="First-token timeout of streaming writers, in milliseconds.",
    )
    langfuse_prompts: bool = Field(
        default=False, description="Fetch prompts from Langfuse (local files are the fallback)."
    )
    # Optional trace exporters (observability/tracing.py); the stored trace is always kept.
    otel_endpoint: str = Field(
        default="",
        description="OTLP/HTTP traces URL (e.g. http://collector:4318/v1/traces); "
        "empty: no OpenTelemetry export.",
    )
    otel_service_name: str = Field(
        default="frontdesk", description="`service.name` of the exported OpenTelemetry spans."
    )
    langfuse_host: str = Field(
        default="https://cloud.langfuse.com",
        validation_alias=AliasChoices("FRONTDESK_LANGFUSE_HOST", "LANGFUSE_HOST"),
        description="Langfuse server receiving graph-run traces.",
    )
    langfuse_public_key: str = Field(
        default="",
        validation_alias=AliasChoices("FRONTDESK_LANGFUSE_PUBLIC_KEY", "LANGFUSE_PUBLIC_KEY"),
        description="Langfuse public key; with the secret key, turns on the Langfuse callback.",
    )
    langfuse_secret_key: str = Field(
        default="",
        validation_alias=AliasChoices("FRONTDESK_LANGFUSE_SECRET_KEY", "LANGFUSE_SECRET_KEY"),
        description="Langfuse secret key.",
    )
    trace_content: bool = Field(
        default=False,
        description="Include message and answer text (and model inputs/outputs) in exported "
        "traces; off: ids, labels, timings and counts only.",
    )
    log_level: LogLevel = Field(default="INFO", description="Log level.")
    log_json: bool = Field(default=False, description="Log as JSON lines instead of text.")
    admin_api_key_hash: str = Field(
        default="",
        description="SHA-256 hex digest of the process-wide admin API key (every site); "
        "empty: only per-site admin tokens (`frontdesk sites token create`) are accepted.",
    )
    admin_auth_max_failures: int = Field(
        default=10,
        ge=1,
        description="Failed admin authentications per client IP per minute before that IP "
        "is locked out of the admin API.",
    )
    admin_lockout_s: int = Field(
        default=300,
        ge=1,
        description="How long a locked-out IP gets 429 (with Retry-After) on every admin route.",
    )
    admin_account_slowdown_s: float = Field(
        default=1.0,
        ge=0,
        le=30,
        description="Delay before each console sign-in to an account that failed more than "
        "FRONTDESK_ADMIN_AUTH_MAX_FAILURES times a minute from all IPs together (for "
        "FRONTDESK_ADMIN_LOCKOUT_S). The account is never locked: only IPs are.",
    )
    metrics_token: str = Field(
        default="",
        description="Bearer token GET /metrics requires (`Authorization: Bearer <token>`); "
        "empty: /metrics answers 403 unless FRONTDESK_METRICS_OPEN is true.",
    )
    metrics_open: bool = Field(
        default=False,
        description="Serve GET /metrics without a token when FRONTDESK_METRICS_TOKEN is "
        "empty: only for a process that nothing but your private network reaches.",
    )
    public_url: str = Field(
        default="",
        description="Public base URL of the API (e.g. https://chat.example.com), used by the "
        "demo page's widget, console links (invitations) and `self` in a site's "
        "widget.allowed_origins; empty: the page's own origin for the demo, the address "
        "`frontdesk serve` binds for links and `self`. Never taken from the Host header.",
    )
    # Console sign-in with OpenID Connect (optional; needs the `oidc` extra). It only maps a
    # provider's verified e-mail to an existing operator: it never creates an account.
    oidc_issuer: str = Field(
        default="",
        description="Issuer URL of the OpenID Connect provider (e.g. https://login.example.com"
        "/realms/acme); empty: the console has password sign-in only.",
    )
    oidc_discovery_url: str = Field(
        default="",
        description="Its discovery document; empty: ISSUER/.well-known/openid-configuration.",
    )
    oidc_client_id: str = Field(default="", description="Client id registered at the provider.")
    oidc_client_secret: SecretStr = Field(
        default=SecretStr(""),
        description="Client secret (set FRONTDESK_OIDC_CLIENT_SECRET in the environment, never "
        "in a file); empty: a public client (PKCE only).",
    )
    oidc_allowed_domains: str = Field(
        default="",
        description="Comma-separated e-mail domains that may sign in with the provider "
        "(empty: any domain); the e-mail must also belong to an existing operator.",
    )
    oidc_redirect_url: str = Field(
        default="",
        description="Callback URL registered at the provider; empty: the public base URL "
        "(PUBLIC_URL, else the bound address; never the Host header) "
        "+ /console/login/oidc/callback.",
    )
    oidc_button_label: str = Field(
        default="Sign in with single sign-on", description="The console's sign-in button."
    )
    max_request_bytes: int = Field(
        default=64_000, ge=1_024, description="Largest request body the API accepts."
    )
    # Handoff delivery ; SMTP is the fallback path.
    smtp_host: str = Field(default="", description="SMTP server for fallback handoff emails.")
    smtp_port: int = Field(default=587, ge=1, le=65535, description="SMTP port.")
    smtp_username: str = Field(default="", description="SMTP login (empty: no auth).")
    smtp_password: str = Field(default="", description="SMTP password.")
    smtp_from: str = Field(
        default="frontdesk@localhost", description="Sender address of fallback emails."
    )
    smtp_starttls: bool = Field(
        default=False, description="Require STARTTLS (otherwise used when the server offers it)."
    )
    smtp_timeout_s: float = Field(default=10.0, gt=0, description="SMTP connect/send timeout.")
    fallback_email: str = Field(
        default="", description="Fallback recipient for sites that do not set their own."
    )
    # The weekly digest of content gaps to each site's owners (`frontdesk.improvement.digest`).
    digest_schedule: str = Field(
        default="0 8 * * 1",
        description="Cron schedule (UTC) of the digest the worker emails to site owners; "
        "empty: no scheduled digest.",
    )
    digest_days: int = Field(default=7, ge=1, le=92, description="Days a digest covers.")
    handoff_http_timeout_s: float = Field(
        default=10.0, gt=0, description="Timeout of one Slack/webhook/enrichment HTTP call."
    )
    dispatcher_poll_s: float = Field(
        default=0.5, gt=0, description="How often the dispatcher looks for due outbox rows."
    )
    live_bus: Literal["auto", "redis", "postgres", "process"] = Field(
        default="auto",
        description="How replicas wake each other's live takeover streams: auto = Redis "
        "pub/sub when redis_url is set, else PostgreSQL LISTEN/NOTIFY when the store is "
        "PostgreSQL, else in-process (one replica).",
    )
    live_poll_s: float = Field(
        default=5.0,
        gt=0,
        description="Live streams also re-read the event log this often (a lost wake-up "
        "only delays a message).",
    )
    live_presence_ttl_s: float = Field(
        default=30.0, gt=0, description="An operator is online this long after a heartbeat."
    )
    dispatch_in_process: bool = Field(
        default=True, description="Run the handoff dispatcher inside the API process."
    )
    run_jobs: bool = Field(
        default=True,
        description="Run the scheduled jobs inside `frontdesk serve`: web source re-syncs "
        "(each in a process of its own), queued trust reports, GDPR retention and the "
        "digest. With several workers or replicas one process runs each job per period (a "
        "lease in the store, or in Redis when FRONTDESK_REDIS_URL is set). Set false when "
        "`frontdesk worker` runs them in a process of its own.",
    )
    jobs_tick_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="How often the scheduled jobs look for work that is due.",
    )
    job_lease_s: float = Field(
        default=120.0,
        ge=0.5,
        le=3600,
        description="A job's lease lasts this long and is renewed four times as often while "
        "the job runs; when the process holding it dies, another takes the job over after "
        "at most this long.",
    )
    trust_in_process: bool = Field(
        default=True,
        description="Run queued trust reports inside the API process when it runs its jobs "
        "(FRONTDESK_RUN_JOBS); else only `frontdesk worker` runs them.",
    )
    trust_questions: int = Field(
        default=54,
        ge=3,
        description="Questions per background trust report (after a sync, or the console's "
        "Run now); see docs/trust.md for how long a run takes.",
    )

    @model_validator(mode="after")
    def _default_database(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'frontdesk.db'}"
        return self

    def ensure_dirs(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)

    @property
    def public_base_url(self) -> str:
        """Where people reach this server, for links in pages and messages: `public_url`,
        else the address `frontdesk serve` binds; "" when that is every interface (no
        single address to name: links stay relative). Never a request's Host header."""
        if self.public_url.strip():
            return self.public_url.strip().rstrip("/")
        try:
            if ipaddress.ip_address(self.host).is_unspecified:
                return ""
        except ValueError:  # a host name
            pass
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def served_origins(self) -> tuple[str, ...]:
        """The origins of pages this server serves (what `self` in a site's
        `widget.allowed_origins` stands for): `public_url`'s origin, else the listening
        address, under both loopback names for a loopback or every-interface bind. Never
        a request's Host header, which the client chooses."""
        if self.public_url.strip():
            parts = urlsplit(self.public_url.strip())
            if parts.scheme and parts.hostname:
                return (web_origin(parts.scheme, parts.hostname, parts.port),)
        try:
            address = ipaddress.ip_address(self.host)
        except ValueError:  # a host name
            if self.host.lower() != "localhost":
                return (web_origin("http", self.host, self.port),)
            address = ipaddress.ip_address("127.0.0.1")
        if address.is_loopback or address.is_unspecified:
            loopback = "::1" if address.version == 6 else "127.0.0.1"
            return (
                web_origin("http", loopback, self.port),
                web_origin("http", "localhost", self.port),
            )
        return (web_origin("http", str(address), self.port),)

    @property
    def spool_path(self) -> Path:
        """The spool folder (`spool_dir`, else `<data_dir>/spool`)."""
        return self.spool_dir or self.data_dir / "spool"


def web_origin(scheme: str, host: str, port: int | None) -> str:
    """`scheme://host[:port]` as a browser sends it in `Origin`: lower case, IPv6 in
    brackets, no default port."""
    scheme, host = scheme.lower(), host.lower()
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" if port in (None, default) else f"{scheme}://{host}:{port}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process settings, read once from the environment."""
    return Settings()
