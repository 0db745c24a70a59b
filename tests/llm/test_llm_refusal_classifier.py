"""Which HTTP errors refuse the response format, which overflow the context — on servers' real error texts.

The bodies are the ones OpenAI, vLLM, llama.cpp, llama-cpp-python, Ollama, TGI, LM Studio and
Anthropic send (quoted in their issue trackers): a refusal of the format steps down the
structured-output ladder, an overflow never does (it trims the passages instead), and neither
is retried as if the server were down.
"""

from __future__ import annotations

import pytest

from ragcov_tui.llm.context_window import Overflow, context_overflow, server_context_size
from ragcov_tui.llm.structured import is_format_refusal

FORMAT_REFUSALS = [
    (
        400,
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model. Learn more "
        "about supported models at the Structured Outputs guide: https://platform.openai.com/docs/guides/structured-outputs",
    ),
    (400, "Invalid value: 'object'. Supported values are: 'json_object', 'json_schema', and 'text'."),
    (400, "Unsupported parameter: 'response_format'. In the Responses API, this parameter has moved to 'text.format'."),
    (400, 'response_format type must be one of "text" or "json_object", but got: json_schema'),
    (
        400,
        "Unable to generate parser for this template. Automatic parser generation failed: JSON schema error at "
        "#/properties/a: cannot resolve $ref #/nope, nope not found",
    ),
    (400, "'response_format.type' must be 'json_schema' or 'text'"),
    (400, "'response_format.json_schema.schema' must be an object"),
    (400, 'invalid format: expected "json" or a JSON schema'),
    (400, "guided_json is not supported with the current backend"),
    (400, "The provided JSON schema contains features not supported by xgrammar."),
    (400, "Unrecognized request argument supplied: response_format"),
    (400, "`response_format` json_schema is not supported with this model"),
    (
        400,
        "1 validation error for ChatCompletionRequest\nresponse_format.type\n  Input should be 'text', "
        "'json_object' or 'json_schema' [type=literal_error, input_value='json_schema', input_type=str]",
    ),
    (422, "response_format.type: Input should be 'text' or 'json_object'"),
    (422, "Input validation error: grammar is not supported by this model"),
    (400, "Structured outputs are not supported for this model"),
    (501, "response_format is not implemented"),
    (
        400,
        "Invalid schema for response_format 'claims': In context=(), 'additionalProperties' is required to be "
        "supplied and to be false.",
    ),
    (400, "response_format is not supported"),  # tests/support/fake_api.py's reject_response_format
]

OVERFLOWS = [  # (status, message, body, expected n_ctx, expected n_prompt)
    (
        400,
        "request (4142 tokens) exceeds the available context size (4096 tokens), try increasing it",
        {"error": {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": 4142, "n_ctx": 4096}},
        4096,
        4142,
    ),
    (
        500,
        "the request exceeds the available context size. try increasing the context size or enable context shift",
        {"error": {"code": 500, "type": "exceed_context_size_error", "n_prompt_tokens": 1407, "n_ctx": 256}},
        256,
        1407,
    ),
    (400, "the request exceeds the available context size, try increasing it", None, None, None),
    (
        400,
        "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the "
        "messages, 10000 in the completion). Please reduce the length of the messages or completion.",
        None,
        16384,
        112946,
    ),
    (
        400,
        "You passed 1015 input tokens and requested 10 output tokens. However, the model's context length is only "
        "1024 tokens, resulting in a maximum input length of 1014 tokens. Please reduce the length of the input "
        "prompt. (parameter=input_tokens, value=1015)",
        None,
        1024,
        1015,
    ),
    (
        400,
        "'max_tokens' or 'max_completion_tokens' is too large: 512. This model's maximum context length is 2048 "
        "tokens and your request has 1800 input tokens (512 > 2048 - 1800).",
        None,
        2048,
        1800,
    ),
    (
        400,
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. "
        "Please reduce the length of the messages.",
        {"error": {"code": "context_length_exceeded"}},
        8192,
        9000,
    ),
    (
        400,
        "Your input exceeds the context window of this model. Please adjust your input and try again.",
        None,
        None,
        None,
    ),
    (
        400,
        "The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that "
        "`max_model_len` is no smaller than the number of text tokens.",
        None,
        4096,
        5000,
    ),
    (
        422,
        "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens "
        "and 200 `max_new_tokens`",
        None,
        4096,
        4000,
    ),
    (400, "the input length exceeds the context length", None, None, None),
    (500, "Requested tokens (2285) exceed context window of 2048", None, 2048, 2285),
    (500, "input is too large to process. increase the physical batch size", None, None, None),
    (
        400,
        "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with "
        "context length of only 4096 tokens, which is not enough.",
        None,
        4096,
        5000,
    ),
    (400, "prompt is too long: 210000 tokens > 200000 maximum", None, 200000, 210000),
]

NEITHER = [
    (
        401,
        "Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.",
    ),
    (404, "The model `gpt-5-mega` does not exist or you do not have access to it."),
    (404, 'model "llama3:70b" not found, try pulling it first'),
    (
        429,
        "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, "
        "Requested 2000. Please try again in 2s.",
    ),
    (429, "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 45000."),
    (400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
    (400, "Invalid 'messages[1].content': string too long. Expected a string with maximum length 10485760."),
    (400, "temperature: Input should be less than or equal to 2"),
    (400, "'messages' must be a non-empty array"),
    (500, "The server had an error while processing your request. Sorry about that!"),
    (503, "The engine is currently overloaded, please try again later"),
    (500, "response_format handling crashed"),  # a 5xx is an outage (retried), not a refusal
    (400, "expected a JSON POST"),
    (400, ""),
]


@pytest.mark.parametrize("status,message", FORMAT_REFUSALS)
def test_format_refusals_are_recognised(status: int, message: str) -> None:
    assert is_format_refusal(status, message)
    assert context_overflow(status, message) is None


@pytest.mark.parametrize("status,message,body,n_ctx,n_prompt", OVERFLOWS)
def test_overflows_are_recognised_with_their_numbers(
    status: int, message: str, body: object, n_ctx: int | None, n_prompt: int | None
) -> None:
    assert context_overflow(status, message, body) == Overflow(n_ctx=n_ctx, n_prompt=n_prompt)


@pytest.mark.parametrize("status,message,body,n_ctx,n_prompt", OVERFLOWS)
def test_an_overflow_never_downgrades_the_format(
    status: int, message: str, body: object, n_ctx: int | None, n_prompt: int | None
) -> None:
    assert not is_format_refusal(status, message)


@pytest.mark.parametrize("status,message", NEITHER)
def test_other_errors_are_neither(status: int, message: str) -> None:
    assert not is_format_refusal(status, message)
    assert context_overflow(status, message) is None


@pytest.mark.parametrize("status", [200, 201, 204, 301, 304])
def test_success_statuses_are_no_overflow(status: int) -> None:
    assert context_overflow(status, OVERFLOWS[0][1]) is None


@pytest.mark.parametrize("status", [400, 413, 422, 500, 502])
def test_overflow_numbers_come_from_the_body_when_the_message_has_none(status: int) -> None:
    body = {
        "error": {"message": "the request exceeds the available context size", "n_prompt_tokens": 3000, "n_ctx": 2048}
    }
    assert context_overflow(status, "the request exceeds the available context size", body) == Overflow(2048, 3000)


PROPS = {"default_generation_settings": {"n_ctx": 2048, "params": {}}, "total_slots": 1}
MODELS_LLAMA = {"object": "list", "data": [{"id": "m", "meta": {"n_ctx": 1024, "n_ctx_train": 8192}}]}
MODELS_TRAIN_ONLY = {"object": "list", "data": [{"id": "m", "meta": {"n_ctx_train": 8192}}]}
MODELS_VLLM = {"object": "list", "data": [{"id": "m", "max_model_len": 32768}]}
MODELS_OPENAI = {"object": "list", "data": [{"id": "gpt-4o", "object": "model", "owned_by": "openai"}]}


@pytest.mark.parametrize(
    "routes,expected",
    [
        ({"/props": PROPS, "/v1/models": MODELS_LLAMA}, 2048),
        ({"/v1/models": MODELS_LLAMA}, 1024),
        ({"/v1/models": MODELS_TRAIN_ONLY}, 8192),
        ({"/v1/models": MODELS_VLLM}, 32768),
        ({"/v1/models": MODELS_OPENAI}, None),
        ({}, None),
        ({"/props": {"default_generation_settings": {"n_ctx": 0}}}, None),
        ({"/props": {"default_generation_settings": {"n_ctx": True}}}, None),
        ({"/props": {"default_generation_settings": "x"}, "/v1/models": {"data": "x"}}, None),
        ({"/props": [], "/v1/models": {"data": [None, 3, {"meta": "x", "max_model_len": -5}]}}, None),
        ({"/v1/models": {"data": [{"meta": {"n_ctx": 10**9}}]}}, None),
    ],
)
def test_server_context_size_from_props_then_models(routes: dict, expected: int | None) -> None:
    assert server_context_size(routes.get) == expected
