"""Helpers of the real-harness tests: a scripted model server and each harness's set-up."""

from tests.e2e._support._server import ModelServer, Request, offers_tools
from tests.e2e._support._wire import Reply, ToolCall

__all__ = ["ModelServer", "Reply", "Request", "ToolCall", "offers_tools"]
