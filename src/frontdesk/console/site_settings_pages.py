"""Editing a site's settings in the console (owners): the form's save.

The site file stays the truth. A save is written into the file atomically, only if the
file is still the version the form was loaded from (else the owner is told and nothing is
written), checked first by the same schema as `frontdesk sites validate`, audited with its
author and each field before and after (secrets only as set / not set), and served at once
by this process; the other processes follow through the store (`sites.follow`).
"""

from __future__ import annotations

import contextlib
from typing import Any

import yaml
from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from frontdesk.api.console_access import ConsoleSite
from frontdesk.api.deps import ConsoleSiteDep, CsrfDep, RuntimeDep
from frontdesk.console.i18n import N_, SOURCE_LOCALE, Messages
from frontdesk.console.settings_pages import _page, reload_sites, validate_text
from frontdesk.console.site_settings_form import (
    SECRET_INPUTS,
    FormInput,
    SettingsForm,
    SettingsRefused,
    apply_form,
    secrets_set,
    typed_values,
)
from frontdesk.console.templating import page_messages
from frontdesk.runtime import Runtime
from frontdesk.sites.editing import (
    SiteFileConflict,
    SiteFileNotWritable,
    changed_fields,
    file_version,
    rewrite_entries,
    update_site_file,
)
from frontdesk.sites.registry import SiteConfigError
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.db import transaction
from frontdesk.store.settings_audit import SettingsAuditRepository

router = APIRouter(prefix="/console/sites/{site}", include_in_schema=False)

CONFLICT = N_(
    "Not saved: the site file changed on disk since this form was loaded (an edit on the "
    "server or another owner's save). Your entries are kept below; open the settings again "
    "to see the file as it is now, then make your change there."
)


class SavedNotServed(Exception):
    """The site file was saved, but this process could not serve it (the reload failed)."""


def save_settings(
    runtime: Runtime,
    site: ConsoleSite,
    version: str,
    submitted: FormInput,
    t: Messages = Messages(SOURCE_LOCALE),
) -> int:
    """Write the submitted settings into the site file if it is still `version`, audit
    them and serve them; the number of fields changed (blocking). The file and its audit
    go together: when the audit cannot be stored, the file is put back as it was. The
    form's refusals are worded in `t`'s language."""
    path = site.site.path
    changed: list[dict[str, Any]] = []
    texts: list[str] = []
    try:
        with transaction(runtime.sessions) as session:

            def change(old_text: str) -> str:
                problem = validate_text(site, old_text)
                if problem is not None:  # broken on disk: fixed in the file, not over it
                    raise SettingsRefused({"(file)": problem})
                raw = yaml.safe_load(old_text)
                before = SiteConfig.model_validate(raw)
                new_text = rewrite_entries(old_text, apply_form(submitted, raw, before, t))
                problem = validate_text(site, new_text)
                if problem is not None:  # what the schema alone cannot see (the whole file)
                    raise SettingsRefused({"(file)": problem})
                after = SiteConfig.model_validate(yaml.safe_load(new_text))
                changed.extend(
                    changed_fields(before.model_dump(mode="json"), after.model_dump(mode="json"))
                )
                if not changed:
                    return old_text
                SettingsAuditRepository(session).record(
                    site.id,
                    operator_id=site.user.operator_id,
                    author=site.user.email,
                    changes=changed,
                    version_before=file_version(old_text),
                    version_after=file_version(new_text),
                )
                texts[:] = [old_text, new_text]
                return new_text

            update_site_file(path, version, change)
    except Exception:
        if texts:  # written, but the audit was not stored: undo, unless edited since
            old_text, new_text = texts
            with contextlib.suppress(SiteFileConflict, SiteFileNotWritable):
                update_site_file(path, file_version(new_text), lambda _text: old_text)
        raise
    if changed:
        try:
            reload_sites(runtime, [site.id])
        except SiteConfigError as exc:
            raise SavedNotServed(str(exc)) from exc
    return len(changed)


def _kept_form(site: ConsoleSite, version: str, submitted: FormInput) -> SettingsForm:
    """The form as the owner filled it in, to correct and send again."""
    rows = sum(1 for name in submitted if name.startswith("webhook.") and name.endswith(".url"))
    return SettingsForm(
        version=version,
        values=typed_values(submitted),
        secrets=secrets_set(site.site.config),
        webhook_rows=max(rows, 1),
        secrets_typed=any(
            values and values[0].strip()
            for name, values in submitted.items()
            if name.endswith(".secret") or name in SECRET_INPUTS
        ),
    )


@router.post("/settings/site", dependencies=[CsrfDep])
async def save(request: Request, runtime: RuntimeDep, site: ConsoleSiteDep) -> Response:
    site.require("owner")
    form = await request.form()
    submitted: FormInput = {
        name: [value for value in form.getlist(name) if isinstance(value, str)] for name in form
    }
    version = (submitted.get("version") or [""])[0]
    kept = _kept_form(site, version, submitted)
    t = page_messages(request, site.user)
    try:
        count = await run_in_threadpool(save_settings, runtime, site, version, submitted, t)
    except SettingsRefused as exc:
        kept.errors = exc.errors
        return await _page(request, runtime, site, status=422, site_form=kept)
    except SiteFileConflict:
        kept.errors = {"(file)": t.gettext(CONFLICT)}
        return await _page(request, runtime, site, status=409, site_form=kept)
    except SiteFileNotWritable as exc:
        kept.errors = {"(file)": t.gettext("Not saved: %(problem)s", problem=str(exc))}
        return await _page(request, runtime, site, status=500, site_form=kept)
    except SavedNotServed as exc:
        return await _page(
            request,
            runtime,
            site,
            status=500,
            reload_error=t.gettext("Saved in the file, %(problem)s", problem=str(exc)),
        )
    web = getattr(request.app.state, "web_sync", None)
    if web is not None:
        web.sites = runtime.sites
    site = ConsoleSite(user=site.user, site=runtime.sites[site.id], role=site.role)
    served = site.site.config
    warnings = served.tone_warnings()
    notice = (
        t.ngettext(
            "Saved: %(count)s setting changed; served from now on.",
            "Saved: %(count)s settings changed; served from now on.",
            count,
        )
        if count
        else t.gettext("Nothing changed.")
    )
    return await _page(request, runtime, site, notice=notice, tone_warnings=warnings)
