"""Migration: plan (dry run), batched backfill into the target, resumable journal."""
