"""What the parts of :class:`~shangyou.server.tables.TableManager` use of one another.

:class:`~shangyou.server.autoplay.Autoplay`, :class:`~shangyou.server.host.HostActions` and
:class:`~shangyou.server.ready.ReadyChecks` are parts of the manager: their methods run on the
manager and call its attributes and methods, and those of the other parts. :class:`ManagerParts`,
their common base, declares those for the type checker; at run time it is empty, and every
member comes from the manager or one of its parts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import schemas
    from .conn import Conn
    from .limits import Limits
    from .model import Seat, Table


class ManagerParts:
    if TYPE_CHECKING:
        # the manager's (shangyou.server.tables.TableManager)
        tables: dict[str, Table]
        limits: Limits
        bot_delay: float

        def _broadcast(self, table: Table, events: list[dict]) -> None: ...

        def _send_state(self, table: Table, conn: Conn,
                        events: list | None = None) -> None: ...

        def _welcome(self, table: Table, conn: Conn, token: str | None) -> None: ...

        async def _commit(self, table: Table, actor: str | None = None) -> None: ...

        async def _save_seats(self, table: Table, changes: dict[int, dict],
                              bans: dict | None = None) -> None: ...

        @staticmethod
        def _is_host(table: Table, conn: Conn) -> bool: ...

        async def _save_table(self, table: Table, **values: object) -> None: ...

        def _no_longer_waiting(self, table_id: str) -> None: ...

        def _stop_tasks(self, t: Table) -> None: ...

        @staticmethod
        def check_game(game: str, players: int | None,
                       options: dict) -> tuple[str, int, dict]: ...

        @staticmethod
        def _stored_options(options: dict, room: dict) -> dict: ...

        # Autoplay's
        def _kick_bots(self, table: Table) -> None: ...

        def _arm_timer(self, table: Table) -> None: ...

        def _start_grace(self, table: Table, seat: Seat) -> None: ...

        @staticmethod
        def _cancel_grace(seat: Seat) -> None: ...

        # HostActions'
        async def _set_host(self, table: Table, token_hash: str) -> None: ...

        # the manager's start (tables.py)
        async def _start(self, table: Table, conn: Conn, msg: schemas.Start) -> None: ...

        # ReadyChecks'
        @staticmethod
        def _end_ready_check(table: Table) -> bool: ...
