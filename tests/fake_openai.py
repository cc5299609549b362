"""A local OpenAI-compatible chat server for tests: the real `openai` client talks to it.

It streams a scripted answer as chat.completion.chunk events and records every
request, so tests can check what the model was sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_ANSWER = ("Arbetsgivaren ska se till att arbetsmiljön är tillfredsställande [1]. "
                  "Enligt en påhittad källa gäller även annat [9].")


class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.script: list[dict] = []  # each: {"text": str} | {"tool_call": {...}} | {"status": 500}
        self.answer = DEFAULT_ANSWER  # or a function of the request body, for answers citing what was sent
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _next(self, body: dict) -> dict:
        if self.script:
            return self.script.pop(0)
        return {"text": self.answer(body) if callable(self.answer) else self.answer}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                fake.requests.append(body)
                step = fake._next(body)
                if "status" in step:
                    payload = json.dumps({"error": {"message": "boom", "type": "server_error"}}).encode()
                    self.send_response(step["status"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in self._chunks(step):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def _chunks(self, step: dict) -> Iterator[dict]:
                base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": "fake"}
                if "tool_call" in step:
                    call = step["tool_call"]
                    yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                        {"index": 0, "id": "call_1", "type": "function",
                         "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}]},
                        "finish_reason": None}]}
                    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
                    return
                words = step["text"].split(" ")
                for i, word in enumerate(words):
                    piece = word if i == 0 else " " + word
                    yield {**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}

        return Handler
