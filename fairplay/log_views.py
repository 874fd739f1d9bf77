"""The commitment log's API: its latest signed checkpoint, proofs, and its entries.

Anybody may read it: it holds only what every table already shows (its commitment,
its contributions' receipts, its result once it ended). ``docs/fairplay.md``
section 17 specifies the formats.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.schema import refusals
from fairplay import commitments

BAD = {
    400: "`invalid_log_request`: a number missing, or not a whole number from 0 to 2^53 - 1",
    404: "`beyond_log`: a size past the latest checkpoint's; `not_in_log`: an index not"
    " below the size, an old size above the new, a start past the end",
}


def _number(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        {"type": "integer", "minimum": 0, "maximum": commitments.LARGEST},
        required=True,
        description=description,
    )


class ProofSerializer(serializers.Serializer):
    proof = serializers.ListField(
        child=serializers.CharField(), help_text="the proof's hashes, lowercase hex, in order"
    )


class InclusionSerializer(ProofSerializer):
    index = serializers.IntegerField()
    size = serializers.IntegerField()


class ConsistencySerializer(ProofSerializer):
    old = serializers.IntegerField()
    new = serializers.IntegerField()


class LogEntrySerializer(serializers.Serializer):
    index = serializers.IntegerField()
    entry = serializers.DictField(help_text="the entry (docs/fairplay.md 17.1)")


class EntriesSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    entries = LogEntrySerializer(many=True)


class CheckpointView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses={
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR,
                description="a C2SP tlog-checkpoint in a C2SP signed note, signed with the"
                " record signing key (docs/fairplay.md 17.3)",
            )
        }
    )
    def get(self, request: Request) -> HttpResponse:
        """The commitment log's latest signed checkpoint: its size and root hash."""
        note = commitments.latest().checkpoint
        return HttpResponse(note, content_type="text/plain; charset=utf-8")


class InclusionView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            _number("index", "the entry's index, from 0"),
            _number("size", "the size of the log to prove it in (a checkpoint's)"),
        ],
        responses={200: InclusionSerializer, **refusals(BAD)},
    )
    def get(self, request: Request) -> Response:
        """The inclusion proof of an entry in the log of a given size (RFC 9162 2.1.3)."""
        query = request.query_params
        return Response(commitments.inclusion(query.get("index"), query.get("size")))


class ConsistencyView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            _number("old", "the size of the older checkpoint"),
            _number("new", "the size of the newer checkpoint"),
        ],
        responses={200: ConsistencySerializer, **refusals(BAD)},
    )
    def get(self, request: Request) -> Response:
        """The consistency proof between two sizes of the log (RFC 9162 2.1.4): save it for
        ``python -m fairplay.verify log OLD NEW --proof FILE``."""
        query = request.query_params
        return Response(commitments.consistency(query.get("old"), query.get("new")))


class EntriesView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            _number("start", "the first entry's index"),
            _number(
                "end",
                f"one past the last; the answer holds at most {commitments.MOST_ENTRIES} entries,"
                " and its end says where it stopped",
            ),
        ],
        responses={200: EntriesSerializer, **refusals(BAD)},
    )
    def get(self, request: Request) -> Response:
        """Entries of the log, by index, in order."""
        query = request.query_params
        return Response(commitments.entries(query.get("start"), query.get("end")))
