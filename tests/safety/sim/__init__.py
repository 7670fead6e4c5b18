"""A sans-I/O reference model of the three Hermes gateways, and a seeded interleaver.

Why a second, independent model of the server: ``desktop.demo`` is a real peer for the
socket tests, but it runs on asyncio and real time, so it cannot interleave thousands of races
per second. This package models only what decides *which request a decision frame resolves* in
each dialect (protocol.md §3), written from the protocol text and never importing the core's
parsers, so a misreading in the core cannot hide in a parser both sides share.
"""
