"""Where the embedded metastore listens and the URI its clients dial."""

from __future__ import annotations

import pytest

from lakeshift.platform.metastore_server import thrift_uri


@pytest.mark.parametrize(
    ("bind_host", "uri"),
    [
        ("127.0.0.1", "thrift://127.0.0.1:9083"),
        # every interface: a client on this machine dials loopback, which is one of them
        ("0.0.0.0", "thrift://127.0.0.1:9083"),
        ("192.0.2.7", "thrift://192.0.2.7:9083"),
    ],
)
def test_clients_dial_the_bound_address_or_loopback_for_every_interface(
    bind_host: str, uri: str
) -> None:
    assert thrift_uri(bind_host, 9083) == uri
