"""The fair-play API: contributions to the seed, records and the public key."""

from __future__ import annotations

from contextlib import suppress

from django.utils.decorators import method_decorator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.replica import lagging_reads
from config.schema import refusals
from fairplay import commitments
from fairplay.key_list import KeyNotInForce, key_in_force, key_list_document
from fairplay.keys import public_key_document
from fairplay.publishing import public_record, signed_record
from games import services
from games.archive import may_watch
from games.models import Table
from games.privacy import may_see
from games.serializers import EntropyField


class EntropySerializer(serializers.Serializer):
    entropy = EntropyField()


class ReceiptSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    receipt = serializers.CharField(help_text="sha256 of your entropy, hex")
    at = serializers.DateTimeField()


class EntropyView(APIView):
    @extend_schema(
        request=EntropySerializer,
        responses={
            201: ReceiptSerializer,
            **refusals(
                {
                    403: "`not_seated`: you have no seat at this table",
                    409: "`too_late`: the cards are dealt; `not_open`: the table was cancelled;"
                    " `already_contributed`; `duplicate_entropy`: entropy already given here",
                }
            ),
        },
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Add your own randomness to the table's seed, before the deal."""
        serializer = EntropySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        contribution = services.table_contribute(
            table_id=table_id, user=request.user, entropy=serializer.validated_data["entropy"]
        )
        return Response(
            {
                "seat": contribution.seat,
                "receipt": contribution.receipt,
                "at": contribution.created_at.isoformat(),
            },
            status=status.HTTP_201_CREATED,
        )


class RecordView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            # Any value but an empty one asks for the file: the schema takes what the view does.
            OpenApiParameter(
                "download", str, description="any value, e.g. download=1: answer as a file to save"
            ),
        ],
        responses={
            200: OpenApiTypes.OBJECT,
            **refusals(
                {
                    503: "`signing_key_not_in_force`: the record is not signed yet, and this"
                    " server's key may not sign it (a change of key under way); try again"
                }
            ),
        },
    )
    @method_decorator(lagging_reads)
    def get(self, request: Request, table_id: int) -> Response:
        """The signed record once the game has ended, signed once when it ended (the same
        bytes ever after); before, only what is public."""
        table = Table.objects.filter(pk=table_id).first()
        if table is None or not may_see(table, request.user):  # a private table: its players'
            raise services.TableNotFound(f"there is no table {table_id}")
        if not may_watch(table, request.user):  # a game its players keep to themselves
            raise services.TableNotFound(f"there is no table {table_id}")
        if table.status != Table.Status.FINISHED:
            return Response(public_record(table))
        envelope = signed_record(table)
        # The commitment log's proofs of the table, beside the signed record (not signed).
        envelope = {**envelope, "transparency": commitments.transparency(table.pk)}
        response = Response(envelope)
        if request.query_params.get("download"):
            response["Content-Disposition"] = (
                f'attachment; filename="fairdeal-table-{table.pk}.json"'
            )
        return response


class KeyView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        """The Ed25519 public key that signs records now (every key ever used: the key list)."""
        return Response(public_key_document())


class KeyListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        """Every Ed25519 key that ever signed records or checkpoints, and the period it
        signed in (`until` null: the key in force); a revoked key says from when, and why."""
        # The key in force is listed from the moment it is first published; a process whose
        # key may not sign (retired, revoked) still answers the list.
        with suppress(KeyNotInForce):
            key_in_force()
        return Response(key_list_document())
