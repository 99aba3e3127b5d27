"""The session: ``initialize`` configures every feature from the client's capabilities.

Settings are layered, each source over the ones before it: the defaults, ``initializationOptions``, the
client's answer to ``workspace/configuration`` (``null``, ``{}`` or a missing section changes nothing, as
eglot, vim-lsp, Neovim and Helix answer), then the settings of ``workspace/didChangeConfiguration``.  Each
source replaces its own layer when it speaks again, so a setting removed there falls back to the layers
under it, at once."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types

from ..config import merge_layers, parse_settings, position_encoding
from ..kinds import DocumentKinds
from ..start_folder import START_NOTICES
from ..wire import install_workspace
from .base import Feature, lsp_method
from .blame import BlameFeature
from .diagnostics import DiagnosticsFeature
from .warm_up import DELAY, warm_up_if_idle

log = logging.getLogger("rollout_lsp")


class LifecycleFeature(Feature):
    pulls_configuration = False
    # the layers of settings, see the module's docstring
    initialization_options: Any = None
    configuration: Any = None
    pushed: Any = None

    def __init__(self, server, *, kinds: DocumentKinds, diagnostics: DiagnosticsFeature, blame: BlameFeature) -> None:
        super().__init__(server)
        self.kinds = kinds  # settings say which paths are rollouts and logs
        self.diagnostics = diagnostics  # a pulling client is asked to pull again when settings change
        self.blame = blame  # registers its lens and hover for workspace files when blame is on

    @lsp_method(types.INITIALIZE)
    def initialize(self, params: types.InitializeParams) -> None:
        """Swap in line-exact documents, configure every feature, and read ``initializationOptions``."""
        server = self.server
        server.configured = asyncio.Event()
        capabilities = params.capabilities
        workspace = capabilities.workspace
        self.pulls_configuration = bool(workspace and workspace.configuration)
        self.initialization_options = params.initialization_options
        self.apply()
        install_workspace(
            server.protocol,
            position_encoding(server.settings, capabilities, server.protocol.workspace.position_encoding),
        )
        server.edits.configure(capabilities)
        for feature in server.features.values():
            feature.configure(capabilities)
        log.info("rollout-lsp %s: %s positions", server.version, server.encoding.value)

    @lsp_method(types.INITIALIZED)
    async def initialized(self, params: types.InitializedParams) -> None:
        """Ask the client for its settings, and let waiting diagnostics go once they are known; a second later,
        do in the background what the first rollout opened would do once per process, unless one is open already
        (``warm_up.py``)."""
        for notice in START_NOTICES:  # said on stderr before the client could hear it (a deleted folder)
            self.server.window_log_message(types.LogMessageParams(types.MessageType.Warning, notice))
        configured = self.server.configured = self.server.configured or asyncio.Event()
        try:
            await self.refresh()
        finally:
            configured.set()
        await self.blame.sync_registration()
        asyncio.get_running_loop().call_later(DELAY, warm_up_if_idle, self.server.protocol)

    @lsp_method(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        """Settings changed: read them again (the whole section, so a removed key goes back to its default)
        and analyse every open document again."""
        self.pushed = params.settings  # the client's whole pushed settings: null or {} pushes nothing
        if self.pulls_configuration:
            await self.refresh()
        else:
            self.apply()
        self.server.reanalyze_all()
        self.diagnostics.refresh()
        await self.blame.sync_registration()

    @lsp_method(types.SHUTDOWN)
    def shutdown(self, params: None) -> None:
        """Stop the analysis threads."""
        if self.server._store is not None:
            self.server._store.shutdown()

    def apply(self) -> None:
        """New settings from the layers: what no layer sets is the default again."""
        server = self.server
        old = server.settings
        value = merge_layers(self.initialization_options, self.configuration, self.pushed)
        server.settings, problems = parse_settings(value, old)
        for problem in problems:
            log.warning(problem)
        server.masker.extra = server.settings.compiled_secret_patterns()
        self.kinds.settings_changed()
        if server._store is not None and server.settings.secret_patterns != old.secret_patterns:
            server._store.reset_caches(server.masker.extra)

    async def refresh(self) -> None:
        """Ask for the ``rolloutLsp`` section when the client answers ``workspace/configuration``."""
        if not self.pulls_configuration:
            return
        try:
            values = await asyncio.wait_for(
                self.server.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="rolloutLsp")])
                ),
                5,
            )
        except Exception as error:  # a client that cannot answer keeps the settings it gave at initialize
            log.warning("workspace/configuration failed: %s", error)
            return
        self.configuration = values[0] if values else None
        self.apply()
