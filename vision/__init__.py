"""The camera pipeline: frames in (sources), cards out (reader.CardReader). docs/vision.md explains
how it decides and what it measures; it imports only tablectl's pure core."""
