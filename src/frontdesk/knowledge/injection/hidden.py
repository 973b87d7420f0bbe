"""Text a browser would not show, dropped before a page becomes a document.

A page author can hide a paragraph from people and leave it for machines: `display:none`,
`font-size:0`, a comment. Quoted to a visitor, it would be the page's word. Loaders and
the crawler's extractor drop such text before extraction and report what they dropped
(reason and excerpt) so that the team can see it.

What is checked is what can be checked without a browser: the `hidden` attribute,
`aria-hidden="true"`, `<template>`, comments, and each element's own inline `style`
(`display:none`, `visibility:hidden`, a zero or near-zero `font-size`, `opacity:0`, zero
width or height with hidden overflow, clipping to nothing, off-screen positioning or
indentation, transparent text or text coloured like its inline background). A panel the
reader opens (a tab panel, an accordion body named by a control's `aria-controls`,
`hidden="until-found"`) is content and stays. Stylesheets
and scripts are not evaluated: a rule in a `<style>` block or a CSS file that hides a
class is not seen. Pure functions over an lxml tree or Markdown text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml.html import HtmlElement

# Hidden text shorter than this (an icon's label, "Close") is dropped without a report.
REPORT_MIN_WORDS = 5
MAX_REPORTED = 20

HIDDEN_REASON_LABELS: dict[str, str] = {
    "hidden_display_none": "hidden text (display:none)",
    "hidden_visibility": "hidden text (visibility:hidden)",
    "hidden_font_size": "hidden text (zero font size)",
    "hidden_opacity": "hidden text (opacity:0)",
    "hidden_zero_size": "hidden text (zero size or clipped away)",
    "hidden_off_screen": "hidden text (positioned off screen)",
    "hidden_colour": "hidden text (transparent or same colour as its background)",
    "hidden_attribute": "hidden text (hidden attribute)",
    "hidden_aria": 'hidden text (aria-hidden="true")',
    "hidden_template": "hidden text (<template>)",
    "hidden_comment": "hidden text (an HTML comment)",
}

HiddenPassage = tuple[str, str]  # (excerpt, reason)

_NUMBER = re.compile(r"^(-?\d*\.?\d+)\s*([a-z%]*)$")
_OFF_SCREEN_PX = -500.0
_PIXELS = {"px": 1.0, "pt": 1.33, "em": 16.0, "rem": 16.0, "": 1.0, "%": 0.16}


def _length(value: str) -> float | None:
    """A CSS length in pixels (roughly: 1em = 16px), None when it is not a plain length."""
    match = _NUMBER.match(value.strip().removesuffix("!important").strip())
    if not match:
        return None
    return float(match[1]) * _PIXELS.get(match[2], 1.0)


def _declarations(style: str) -> dict[str, str]:
    declarations: dict[str, str] = {}
    for part in style.split(";"):
        name, colon, value = part.partition(":")
        if colon:
            declarations[name.strip().lower()] = " ".join(value.lower().split())
    return declarations


def style_hides(style: str) -> str | None:
    """The reason an inline `style` hides its element's text, or None."""
    css = _declarations(style)
    if css.get("display", "").startswith("none"):
        return "hidden_display_none"
    if css.get("visibility", "").startswith(("hidden", "collapse")):
        return "hidden_visibility"
    size = _length(css.get("font-size", "x"))
    if size is not None and size < 2:
        return "hidden_font_size"
    opacity = css.get("opacity", "").removesuffix("!important").strip()
    value = _length(opacity.removesuffix("%"))
    if value is not None and value <= (5 if opacity.endswith("%") else 0.05):
        return "hidden_opacity"
    if _zero_size(css):
        return "hidden_zero_size"
    if _off_screen(css):
        return "hidden_off_screen"
    colour = css.get("color", "").removesuffix("!important").strip()
    background = (css.get("background-color") or css.get("background", "")).strip()
    if colour in ("transparent", "rgba(0,0,0,0)", "rgba(0, 0, 0, 0)") or (
        colour and colour == background.removesuffix("!important").strip()
    ):
        return "hidden_colour"
    return None


def _zero_size(css: dict[str, str]) -> bool:
    clip = css.get("clip", "").replace(" ", "").replace("px", "")
    clip_path = css.get("clip-path", "").replace(" ", "")
    if clip in ("rect(0,0,0,0)", "rect(0000)", "rect(1,1,1,1)") or clip_path in (
        "inset(50%)",
        "inset(100%)",
    ):
        return True
    if not css.get("overflow", "").startswith(("hidden", "clip")):
        return False
    sizes = [_length(css.get(name, "x")) for name in ("width", "height", "max-width", "max-height")]
    return any(size is not None and size <= 1 for size in sizes)


def _off_screen(css: dict[str, str]) -> bool:
    indent = _length(css.get("text-indent", "x"))
    if indent is not None and indent <= _OFF_SCREEN_PX:
        return True
    if css.get("position", "") in ("absolute", "fixed"):
        for side in ("left", "top", "right", "bottom"):
            offset = _length(css.get(side, "x"))
            if offset is not None and offset <= _OFF_SCREEN_PX:
                return True
    return bool(re.search(r"translate[xy3d]*\(\s*-\d{3,}", css.get("transform", "")))


def element_hides(element: HtmlElement) -> str | None:
    """The reason an element's text is not shown by a browser, or None."""
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag == "template":
        return "hidden_template"
    if element.get("hidden") is not None:
        return "hidden_attribute"
    if str(element.get("aria-hidden", "")).strip().lower() == "true":
        return "hidden_aria"
    style = element.get("style")
    return style_hides(style) if style else None


def _excerpt(text: str) -> str:
    return " ".join(text.split())


def _report(found: list[HiddenPassage], text: str, reason: str) -> None:
    excerpt = _excerpt(text)
    if len(found) < MAX_REPORTED and len(re.findall(r"\w+", excerpt)) >= REPORT_MIN_WORDS:
        found.append((excerpt[:200], reason))


def _remove(node: HtmlElement) -> None:
    """`node` out of the tree, its tail text (what follows it) kept."""
    parent = node.getparent()
    if parent is None:
        return
    tail = node.tail
    previous = node.getprevious()
    parent.remove(node)
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


def drop_hidden(root: HtmlElement) -> list[HiddenPassage]:
    """Remove, in place, every element a browser would not show and every comment; the
    removed text that reads like prose, with why."""
    from lxml import etree

    found: list[HiddenPassage] = []
    hidden: list[HtmlElement] = []
    revealable = _revealable_ids(root)
    for node in _walk(root, revealable):
        if isinstance(node, etree._Comment):
            _report(found, str(node.text or ""), "hidden_comment")
            hidden.append(node)
        elif isinstance(node.tag, str) and node.tag not in ("html", "head", "body"):
            reason = _hides(node, revealable)
            if reason:
                _report(found, node.text_content(), reason)
                hidden.append(node)
    for node in hidden:
        _remove(node)
    return found


def _revealable_ids(root: HtmlElement) -> set[str]:
    """Ids of elements a control on the page shows on demand: an accordion's or a tab's
    panel (`aria-controls`, `data-target`, `data-bs-target`)."""
    ids: set[str] = set()
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        ids.update(str(element.get("aria-controls") or "").split())
        for name in ("data-target", "data-bs-target"):
            target = str(element.get(name) or "")
            if target.startswith("#"):
                ids.add(target[1:])
    return ids


def _hides(element: HtmlElement, revealable: set[str]) -> str | None:
    """`element_hides`, except for a panel the reader opens: a tab panel, an accordion's
    body named by a control, `hidden="until-found"` (found by the browser's search)."""
    reason = element_hides(element)
    if reason in ("hidden_attribute", "hidden_display_none") and (
        element.get("id") in revealable
        or element.get("role") == "tabpanel"
        or str(element.get("hidden") or "").lower() == "until-found"
    ):
        return None
    return reason


def _walk(root: HtmlElement, revealable: set[str]) -> Iterator[HtmlElement]:
    """Every node under `root`, not descending into one that is hidden."""
    from lxml import etree

    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, etree._Comment) or (
            isinstance(node.tag, str) and node is not root and _hides(node, revealable)
        ):
            continue
        stack.extend(reversed(list(node)))


def visible_html(html: str) -> tuple[str, list[HiddenPassage]]:
    """`html` without what a browser would not show (see `drop_hidden`)."""
    import lxml.html
    from lxml import etree

    try:
        root = lxml.html.document_fromstring(html)
    except (ValueError, etree.ParserError):
        return html, []
    found = drop_hidden(root)
    return lxml.html.tostring(root, encoding="unicode"), found


_FENCE = re.compile(r"^(?:```|~~~).*?^(?:```|~~~)[^\n]*$", re.MULTILINE | re.DOTALL)
_MARKDOWN_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_RAW_TAG = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)\b([^<>]*)>", re.DOTALL)
_ATTRIBUTE = re.compile(r"""([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")


def _attributes_hide(tag: str, attributes: str) -> str | None:
    if tag.lower() == "template":
        return "hidden_template"
    values = {m[1].lower(): m[2] or m[3] or m[4] or "" for m in _ATTRIBUTE.finditer(attributes)}
    if "hidden" in values:
        return "hidden_attribute"
    if values.get("aria-hidden", "").strip().lower() == "true":
        return "hidden_aria"
    return style_hides(values["style"]) if "style" in values else None


def visible_markdown(text: str) -> tuple[str, list[HiddenPassage]]:
    """Markdown without comments and without raw-HTML elements that hide their text
    (`<span style="display:none">…</span>`), code blocks left as they are."""
    found: list[HiddenPassage] = []
    parts: list[str] = []
    position = 0
    for fence in _FENCE.finditer(text):
        parts.append(_visible_prose(text[position : fence.start()], found))
        parts.append(fence[0])
        position = fence.end()
    parts.append(_visible_prose(text[position:], found))
    return ("".join(parts), found) if found or "".join(parts) != text else (text, [])


def _visible_prose(text: str, found: list[HiddenPassage]) -> str:
    def comment(match: re.Match[str]) -> str:
        _report(found, match[0].removeprefix("<!--").removesuffix("-->"), "hidden_comment")
        return ""

    text = _MARKDOWN_COMMENT.sub(comment, text)
    pieces: list[str] = []
    position = kept_from = 0
    while (opening := _RAW_TAG.search(text, position)) is not None:
        reason = _attributes_hide(opening[1], opening[2])
        if reason is None:
            position = opening.end()
            continue
        closing = re.compile(rf"</{re.escape(opening[1])}\s*>", re.I).search(text, opening.end())
        end = closing.end() if closing else len(text)
        inner = text[opening.end() : closing.start() if closing else len(text)]
        _report(found, re.sub(r"<[^>]+>", " ", inner), reason)
        pieces.append(text[kept_from : opening.start()])
        position = kept_from = end
    pieces.append(text[kept_from:])
    return "".join(pieces)
