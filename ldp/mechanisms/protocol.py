"""Interactive (multi-round) protocols: heavy hitters and frequent itemsets (the LDP lecture's second half).

A protocol is a thin registered layer over the mechanisms: the users are split into groups, each group's users run
one client (a local randomizer, named by ``client``), and the server's state between the rounds — the candidates
kept so far, a private length estimate — decides what the next group reports. So there is no single report file: a
round's reports only make sense with the server's state of the rounds before it (``ldp perturb`` says so and names
the command that runs the protocol, ``cli_command``).

Every protocol class is registered in :data:`~ldp.core.registry.PROTOCOLS` with its ``kind`` (one of
:data:`PROTOCOL_KINDS`), metadata the CLI (``ldp mechanisms`` lists them beside the mechanisms), the pages and the
conformance tests read, and its declared parameters.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ldp.core.errors import InvalidInput, NotAvailable
from ldp.core.params import EPSILON, Param
from ldp.core.registry import PROTOCOLS

__all__ = ["PROTOCOL_KINDS", "Protocol", "protocols_of"]

#: The kinds of interactive protocol, in listing order.
PROTOCOL_KINDS = {
    "heavy-hitters": "Heavy hitters (the k most frequent of 2^m values)",
    "itemsets": "Frequent items and itemsets of set-valued data",
}


class Protocol:
    """Base of the registered interactive protocols (metadata only; each family defines how it runs).

    Attributes
    ----------
    name, display_name, description, paper : str
        Registry metadata.
    kind : str
        One of :data:`PROTOCOL_KINDS`.
    collection : str
        "interactive" (rounds that depend on the server's state) or "one-time" (one round: report files exist).
    client : str
        What every round's users run.
    cli_command : str
        The command that runs it (``ldp heavy-hitters``, ``ldp itemsets``).
    declared_parameters : tuple of Param
        Its parameters beyond ε.
    """

    name: ClassVar[str]
    display_name: ClassVar[str]
    description: ClassVar[str]
    paper: ClassVar[str]
    kind: ClassVar[str]
    collection: ClassVar[str] = "interactive"
    #: What every round's users run, in words (the registered mechanism where there is one).
    client: ClassVar[str]
    #: The command that runs the protocol from the command line.
    cli_command: ClassVar[str]
    #: Parameters beyond ε (and the family's own size parameters, e.g. bits and k).
    declared_parameters: ClassVar[tuple[Param, ...]] = ()

    @classmethod
    def parameter_table(cls) -> tuple[Param, ...]:
        return (EPSILON, *cls.declared_parameters)

    @classmethod
    def parameters_info(cls) -> list[dict[str, Any]]:
        return [p.to_dict() for p in cls.parameter_table()]

    @classmethod
    def own_parameters(cls) -> tuple[Param, ...]:
        return tuple(cls.declared_parameters)

    @classmethod
    def interactive_note(cls) -> str:
        """One line: why the protocol has no report file, and how to run it."""
        return (f"{cls.name} is an interactive protocol ({PROTOCOL_KINDS[cls.kind].lower()}): each round's users "
                f"report what the server's earlier rounds chose, so there is no single report file; run it with "
                f"'ldp {cls.cli_command}'")

    @classmethod
    def no_report_files(cls) -> str | None:
        """One line saying why ``ldp perturb``/``ldp aggregate`` cannot run it (None when they can): the interactive
        protocols' :meth:`interactive_note` by default."""
        return cls.interactive_note() if cls.collection == "interactive" else None

    # ------------------------------------------------------------------ privacy: the clients' exact channels
    @classmethod
    def client_channels(cls, epsilon: float) -> list[tuple[str, np.ndarray]]:
        """The exact channel of one user's report in every kind of round, on a small instance of the protocol.

        A user takes part in one round and reports once, through a channel that may depend on public choices the
        server makes independently of her value (her round, the node or bit position she is asked about, the
        round's padding length); one matrix per such choice, rows the user's inputs, columns her reports, entries
        Pr[report | input]. The protocol is ε-LDP when every matrix's largest log ratio within a column
        (:func:`~ldp.mechanisms.base.channel_privacy_loss`) is at most ε, and spends its budget when one of them
        reaches ε; the conformance suite checks both at the boundary for every registered protocol.

        Generic: the channels of :meth:`round_clients` (each with a ``channel()`` as
        :meth:`ldp.mechanisms.base.Mechanism.channel`); a family whose client is not a channel object overrides this.

        Parameters
        ----------
        epsilon : float
            The protocol's privacy budget.

        Returns
        -------
        list of (str, numpy.ndarray)
            A label (which round or public choice) and the inputs × reports matrix, each row summing to 1.
        """
        return [(label, np.asarray(client.channel(max_outputs=1 << 16)[0], dtype=np.float64))
                for label, client in cls.round_clients(epsilon)]

    @classmethod
    def round_clients(cls, epsilon: float) -> list[tuple[str, Any]]:
        """The local randomizers the rounds' users run on a small instance (hook of :meth:`client_channels`).

        Parameters
        ----------
        epsilon : float
            The budget each round's client runs at (one round per user: parallel composition).

        Returns
        -------
        list of (str, object)
            A label and an object with ``channel(max_outputs)`` returning (matrix, labels): a registered mechanism,
            or a family's composition of one with its input encoding.

        Raises
        ------
        NotAvailable
            When the family declares neither this hook nor :meth:`client_channels`.
        """
        raise NotAvailable(f"{cls.name}: declares no client channel (round_clients or client_channels)")


def protocols_of(kind: str) -> list[type[Protocol]]:
    """The registered interactive protocols of one kind, in listing order.

    Parameters
    ----------
    kind : str
        One of :data:`PROTOCOL_KINDS`: ``"heavy-hitters"`` or ``"itemsets"``.

    Returns
    -------
    list of type
        The :class:`Protocol` subclasses of that kind.

    Raises
    ------
    InvalidInput
        For an unknown kind.
    """
    if kind not in PROTOCOL_KINDS:
        raise InvalidInput(f"unknown protocol kind {kind!r}; choose one of: {', '.join(PROTOCOL_KINDS)}")
    return PROTOCOLS.filter(lambda cls: cls.kind == kind)
