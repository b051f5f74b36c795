"""``manage.py export_hands (--table ID [--hand N] | --tournament ID | --stream ID) [--format phhs|jsonl]
[-o FILE]``: export hand histories (PHH) or event streams (JSON Lines) for auditors (:mod:`audit.export`).

``--format phhs`` (default): a table's finished hands, one of them with ``--hand N`` (a ``.phh``), a
tournament's (every table, in the order the hands ended), or those of a stream (``table-N``: that table;
``tournament-N`` / ``mtt-N``: that tournament). ``--format jsonl``: the events of the table's, tournament's
(then its tables') or the stream's, with their hashes. To stdout, or to ``FILE`` (written whole or not at
all). Bad input (unknown ids, no finished hand, a malformed stream id, an unwritable file): exit 1 with a
line on stderr, nothing written.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from audit import export


class Command(BaseCommand):
    help = "Export hand histories (PHH) or event streams (JSON Lines) of a table, a tournament or a stream."

    def add_arguments(self, parser: Any) -> None:
        what = parser.add_mutually_exclusive_group(required=True)
        what.add_argument("--table", type=int, metavar="ID", help="a table")
        what.add_argument("--tournament", type=int, metavar="ID", help="a tournament (any kind)")
        what.add_argument("--stream", metavar="ID", help="a stream: table-N, tournament-N or mtt-N")
        parser.add_argument("--hand", type=int, metavar="N", help="with --table: only hand N, as a .phh")
        parser.add_argument("--format", choices=("phhs", "jsonl"), default="phhs", help="default: phhs")
        parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")

    def handle(self, *args: Any, **options: Any) -> None:
        content = self._content(options)
        output = options["output"]
        if output is None:
            for part in content:
                self.stdout.write(part, ending="")
            return
        self._write(Path(output), content)

    def _content(self, options: dict[str, Any]) -> Iterator[str]:
        """What to write; every check (ids, hands, stream ids) is done before the first part."""
        table, tournament, stream = options["table"], options["tournament"], options["stream"]
        hand = options["hand"]
        jsonl = options["format"] == "jsonl"
        if hand is not None and (table is None or jsonl):
            raise CommandError("--hand goes with --table and the phhs format")
        try:
            if stream is not None:
                export.check_stream_id(stream)
                kind, number = stream.rsplit("-", 1)
                if jsonl:
                    return export.stream_jsonl(stream)
                if kind == "table":
                    return iter([export.table_phhs(int(number))])
                if export.tournament_stream(int(number)) != stream:
                    raise export.NotFound(_("Stream %(stream)s does not exist.") % {"stream": stream})
                return iter([export.tournament_phhs(int(number))])
            if table is not None:
                if jsonl:
                    return export.stream_jsonl(f"table-{table}")
                if hand is not None:
                    return iter([export.hand_phh(table, hand)])
                return iter([export.table_phhs(table)])
            if jsonl:
                return export.tournament_jsonl(tournament)
            return iter([export.tournament_phhs(tournament)])
        except export.ExportError as error:
            raise CommandError(str(error)) from error

    def _write(self, path: Path, content: Iterator[str]) -> None:
        """Write ``content`` to ``path`` through a temporary file beside it, renamed at the end: the file
        is written whole or not at all."""
        temporary = path.with_name(f".{path.name}.{os.getpid()}.part")
        try:
            with temporary.open("w", encoding="utf-8", newline="\n") as file:
                for part in content:
                    file.write(part)
            os.replace(temporary, path)
        except BaseException as error:
            with contextlib.suppress(OSError):
                temporary.unlink()
            if isinstance(error, OSError):
                raise CommandError(f"cannot write {path}: {error.strerror or error}") from error
            raise
