#!/bin/bash
cd /workspace
git apply <<'PATCH'
diff --git a/store/snapshot.go b/store/snapshot.go
--- a/store/snapshot.go
+++ b/store/snapshot.go
@@ -7 +7 @@
-	defer f.Close()
+	defer closeAndSync(f)
PATCH
